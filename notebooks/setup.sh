#!/bin/bash
# The first cell of every notebook runs this script, `!*bash "$GONB_DIR/setup.sh"`,
# in GoNB's temporary module folder (GONB_DIR is the notebook's folder). It makes
# that module build against the fwstruct checkout: $FWSTRUCT_ROOT (set by
# `make notebooks` and `make jupyter`), else the parent of the notebook's folder.
#
# When that folder holds no fwstruct module, the cell says so, and every later
# cell fails to build with an error naming the problem instead of a module proxy
# error (403) and "undefined" in every cell: the module is replaced by stand-ins
# of its packages whose only declaration does not compile and says what to do.
gonb=v0.11.4 # the kernel's version: cells import gonbui without a version look-up
root="${FWSTRUCT_ROOT:-$(cd "$GONB_DIR/.." 2>/dev/null && pwd)}"
if grep -qsx 'module github.com/fwstruct/fwstruct' "$root/go.mod"; then
	target="$root"
	echo "fwstruct: building against the checkout at $root"
	echo "datasets: FWSTRUCT_DATA=${FWSTRUCT_DATA:-unset}"
else
	target="${TMPDIR:-/tmp}/fwstruct-checkout-not-found"
	mkdir -p "$target" && echo 'module github.com/fwstruct/fwstruct' > "$target/go.mod"
	for pkg in align datasets factorgraph imaging/features imaging/slic inference oracles oracles/oraclestest \
		solver solver/execution solver/run solver/soft solver/kernel ssvmnb ssvmnb/papers tune viz; do
		mkdir -p "$target/$pkg"
		printf 'package %s\n\n// A stand-in: the first cell of the notebook found no fwstruct checkout.\nvar _ int = "fwstruct checkout not found (see the first cell): set FWSTRUCT_ROOT to the fwstruct checkout and run the first cell again"\n' \
			"$(basename "$pkg")" > "$target/$pkg/stand_in.go"
	done
	echo "ERROR: no fwstruct checkout at '${root}' (no go.mod of module github.com/fwstruct/fwstruct there)." >&2
	echo "Set FWSTRUCT_ROOT to the fwstruct checkout (make jupyter and make notebooks do) and run this cell again." >&2
fi
go mod edit -require=github.com/fwstruct/fwstruct@v0.0.0-00010101000000-000000000000 \
	-replace=github.com/fwstruct/fwstruct="$target" -require=github.com/janpfeifer/gonb@$gonb
