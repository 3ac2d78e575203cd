// Sorts tables with class "sortable" by the column whose header is
// clicked, and opens every chain before printing.
(function () {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th.sortable").forEach(function (th, col) {
      var asc = true;
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute("data-sort") || a.cells[col].textContent;
          var y = b.cells[col].getAttribute("data-sort") || b.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? c : -c;
        });
        asc = !asc;
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();
