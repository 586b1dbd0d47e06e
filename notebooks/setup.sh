#!/bin/bash
# The first cell of every notebook runs this script, `!*bash "$GONB_DIR/setup.sh"`,
# in GoNB's temporary module folder (GONB_DIR is the notebook's folder). It makes
# that module build against the fwstruct checkout: $FWSTRUCT_ROOT (set by
# `make notebooks` and `make jupyter`), else the parent of the notebook's folder.
#
# When that folder holds no fwstruct module, the cell says so, and every later
# cell fails to build with an error naming the problem (the module is replaced
# by an empty one whose path says what to do) instead of a module proxy error
# and "undefined" in every cell.
gonb=v0.11.4 # the kernel's version: cells import gonbui without a version look-up
root="${FWSTRUCT_ROOT:-$(cd "$GONB_DIR/.." 2>/dev/null && pwd)}"
if grep -qsx 'module github.com/fwstruct/fwstruct' "$root/go.mod"; then
	target="$root"
	echo "fwstruct: building against the checkout at $root"
	echo "datasets: FWSTRUCT_DATA=${FWSTRUCT_DATA:-unset}"
else
	target="${TMPDIR:-/tmp}/fwstruct-checkout-not-found--set-FWSTRUCT_ROOT-and-run-the-first-cell-again"
	mkdir -p "$target" && echo 'module github.com/fwstruct/fwstruct' > "$target/go.mod"
	echo "ERROR: no fwstruct checkout at '${root}' (no go.mod of module github.com/fwstruct/fwstruct there)." >&2
	echo "Set FWSTRUCT_ROOT to the fwstruct checkout (make jupyter and make notebooks do) and run this cell again." >&2
fi
go mod edit -require=github.com/fwstruct/fwstruct@v0.0.0-00010101000000-000000000000 \
	-replace=github.com/fwstruct/fwstruct="$target" -require=github.com/janpfeifer/gonb@$gonb
