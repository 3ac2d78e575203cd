package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInlineImports(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`cd /testbed && python3 -c "` + "\nimport os, sys as system\nfrom astropy.modeling import models as m\nimport numpy as np\nimport os.path\n" + `"`, []string{"os", "sys", "astropy", "numpy"}},
		{`python -c "import sys; print(sys.version)" 2>&1 | head`, []string{"sys"}},
		{`python -c "from . import x; from .y import z"`, nil}, // relative
		{`python -c "print('import this')"`, nil},
		{`python -c "` + "try:\n    import yaml\nexcept ImportError:\n    pass\n" + `"`, []string{"yaml"}},
		{`python -c "from __future__ import annotations; from pkg.mod import*"`, []string{"__future__", "pkg"}},
		{"python - <<'PY'\nimport docopt\nfrom yaml import safe_load\nPY", []string{"docopt", "yaml"}},
		{"python3 <<EOF | tail -3\nimport numpy as np\nEOF", []string{"numpy"}},
		{"python script.py <<EOF\nimport os\nEOF", nil}, // the script reads the text as data
		{`python script.py`, nil},
		{`python -c`, nil},
		{`node -e "require('fs')"`, nil},
	}
	for _, tt := range tests {
		if got := Parse(tt.line).InlineImports(); !cmp.Equal(got, tt.want) {
			t.Errorf("Parse(%q).InlineImports() = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestStdlibModule(t *testing.T) {
	for name, want := range map[string]bool{"os": true, "importlib": true, "tomllib": true, "__future__": true, "numpy": false, "astroid": false, "": false} {
		if got := StdlibModule(name); got != want {
			t.Errorf("StdlibModule(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPackages(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`pip install Django==4.2 "requests[socks]>=2" typing_extensions`, []string{"django", "requests", "typing-extensions"}},
		{`pip install -i https://pypi.example.org/simple --no-deps astropy`, []string{"astropy"}},
		{`pip install --index-url=https://x/simple torch`, []string{"torch"}},
		{`cd /testbed && pip install -e . 2>&1 | tail -5`, []string{"."}},
		{`pip install -r requirements.txt -c constraints.txt`, []string{"requirements.txt"}},
		{`uv pip install zope.interface`, []string{"zope-interface"}},
		{`npm install @types/node@20 left-pad@1.3.0 --save-dev`, []string{"@types/node", "left-pad"}},
		{`npm install`, nil},
		{`sudo apt-get install -y python3-dev=3.11.2-1 libssl-dev:amd64`, []string{"python3-dev", "libssl-dev"}},
		{`go get github.com/Foo/bar@v1.2.0`, []string{"github.com/foo/bar"}},
		{`cargo add serde --features derive`, []string{"serde"}},
		{`pip install -e '.[dev,test]'`, []string{"."}},
		{`pip install -f https://example.org/wheels --config-settings editable_mode=compat torch`, []string{"torch"}},
		{`sudo apt-get install -f libssl-dev`, []string{"libssl-dev"}}, // -f: --fix-broken
		{`cargo install -f ripgrep`, []string{"ripgrep"}},              // -f: --force
		{`npm i -w packages/web lodash`, []string{"lodash"}},
		{`npm install --loglevel verbose --omit dev jest`, []string{"jest"}},
		{`gem install bundler -v 2.3.26`, []string{"bundler"}},
		{`pip show numpy`, nil},
		{`python -m pip install numpy`, []string{"numpy"}},
	}
	for _, tt := range tests {
		if got := Parse(tt.line).Packages(); !cmp.Equal(got, tt.want) {
			t.Errorf("Parse(%q).Packages() = %q, want %q", tt.line, got, tt.want)
		}
	}
}
