package htmlcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// The check sees what a broken page does: a script that throws after
// writing its check is caught by the page's handler and Chromium's console,
// a script that does not parse leaves the check undone.
func TestCheckSeesErrors(t *testing.T) {
	Chromium(t)
	const check = `<pre id="vkgen-check">{"done":false}</pre><script>
var errors = [];
function done() { document.getElementById("vkgen-check").textContent = JSON.stringify({done: true, charts: 1, series: 1, points: 2, errors: errors}); }
window.addEventListener("error", function (e) { errors.push(String(e.message)); done(); });
done();
</script>`
	for name, c := range map[string]struct {
		page   string
		done   bool
		errors bool
	}{
		"clean":  {check, true, false},
		"throws": {check + `<script>null.x = 1;</script>`, true, true},
		"syntax": {`<pre id="vkgen-check">{"done":false}</pre><script>function (</script>`, false, true},
	} {
		t.Run(name, func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "p.html")
			os.WriteFile(page, []byte("<!DOCTYPE html><html><body>"+c.page+"</body></html>"), 0o644)
			r := Check(t, page)
			if r.Done != c.done || (len(r.Errors) > 0) != c.errors {
				t.Errorf("done %v, errors %q; want done %v, errors %v", r.Done, r.Errors, c.done, c.errors)
			}
		})
	}
}
