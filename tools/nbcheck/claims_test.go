package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/ssvmnb"
)

// claimCell is an executed cell whose output is the Markdown ssvmnb shows
// for claims.
func claimCell(t *testing.T, c *ssvmnb.Claims) string {
	t.Helper()
	md, err := json.Marshal(c.Markdown())
	if err != nil {
		t.Fatal(err)
	}
	return `{"cell_type": "code", "execution_count": 9, "source": "%%\nc.Show()",
  "outputs": [{"output_type": "display_data", "data": {"text/markdown": ` + string(md) + `, "text/plain": "claims"}, "metadata": {}}]}`
}

func TestCheckNotebookClaims(t *testing.T) {
	if claimFailedMarker != ssvmnb.ClaimFailedMarker {
		t.Fatalf("nbcheck looks for %q, ssvmnb writes %q", claimFailedMarker, ssvmnb.ClaimFailedMarker)
	}
	gapBCFW, gapFW := 0.18, 0.79
	var holds ssvmnb.Claims
	holds.Quote("gap at pass 40: bcfw %s, fw %s", ssvmnb.Cell(gapBCFW), ssvmnb.Cell(gapFW))
	holds.Check(gapBCFW < gapFW, "BCFW's gap ends below FW's")
	if _, err := CheckNotebook(nb(setupCell, htmlFigure, claimCell(t, &holds)), defaultRules); err != nil {
		t.Fatalf("claims that hold rejected: %v", err)
	}

	// The same notebook with one claim broken on purpose: the text says FW
	// ends below BCFW, the run shows the opposite.
	var broken ssvmnb.Claims
	broken.Check(gapBCFW < gapFW, "BCFW's gap ends below FW's")
	broken.Check(gapFW < gapBCFW, "FW's gap ends below BCFW's (%s vs %s)", ssvmnb.Cell(gapFW), ssvmnb.Cell(gapBCFW))
	_, err := CheckNotebook(nb(setupCell, htmlFigure, claimCell(t, &broken)), defaultRules)
	if err == nil {
		t.Fatal("a notebook with a failed claim passed")
	}
	errs := unwrapAll(err)
	if len(errs) != 1 {
		t.Fatalf("%d problems, want 1 (the failed claim, once): %v", len(errs), err)
	}
	want := "cell 2 (%%): claim does not hold for the run shown: FW's gap ends below BCFW's (0.79 vs 0.18)"
	if errs[0].Error() != want {
		t.Errorf("error %q, want %q", errs[0], want)
	}
	if strings.Contains(err.Error(), "BCFW's gap ends below FW's") {
		t.Errorf("a claim that holds is reported: %v", err)
	}
}
