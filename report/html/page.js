// The page's only script. It sorts tables with class "sortable" by the
// column whose header is clicked, filters the index of sessions, opens the
// chain a link points to, and opens every chain before printing. It reads
// text and data attributes and writes no markup.
(function () {
  "use strict";
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th.sortable").forEach(function (th) {
      var asc = true;
      th.addEventListener("click", function () {
        var col = th.cellIndex;
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute("data-sort") || a.cells[col].textContent;
          var y = b.cells[col].getAttribute("data-sort") || b.cells[col].textContent;
          var nx = Number(x), ny = Number(y);
          var c = (x !== "" && y !== "" && !isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? c : -c;
        });
        asc = !asc;
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  var form = document.getElementById("filters");
  var index = document.getElementById("index");
  if (form && index) {
    var filter = function () {
      var project = form.elements.project.value, agent = form.elements.agent.value;
      var category = form.elements.category.value, text = form.elements.text.value.toLowerCase();
      var shown = 0, rows = index.tBodies[0].rows;
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i], d = r.dataset;
        var ok = (!project || d.project === project) && (!agent || d.agent === agent) &&
          (!category || d.categories.split(" ").indexOf(category) >= 0) &&
          (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
        r.hidden = !ok;
        if (ok) { shown++; }
      }
      form.elements.count.value = shown === rows.length ? rows.length + " sessions" : shown + " of " + rows.length + " sessions";
    };
    form.addEventListener("input", filter);
    form.addEventListener("change", filter);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
  }

  // A link to a chain opens it: a closed <details> would hide its story.
  var openTarget = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; }
    }
  };
  window.addEventListener("hashchange", openTarget);
  openTarget();
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();
