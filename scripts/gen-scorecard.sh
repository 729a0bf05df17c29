#!/bin/sh
# Refreshes the scorecard block of README.md (between `<!-- scorecard:begin -->` and
# `<!-- scorecard:end -->`) from `storlab validate --markdown`: run it in the commit that
# changes a simulated figure, with references/floor.toml raised when more figures pass. The
# test `validate_floor::the_readme_scorecard_is_generated` checks the block is current.
set -eu
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
begin='<!-- scorecard:begin -->'
end='<!-- scorecard:end -->'
if ! grep -qx "$begin" README.md || ! grep -qx "$end" README.md; then
    echo "gen-scorecard: README.md has no $begin ... $end block (put both markers on lines of their own)" >&2
    exit 2
fi
mkdir -p target
md=target/scorecard.md
# validate exits 1 while any figure is outside its tolerance; the scorecard is written anyway.
status=0
"$CARGO" run --release --locked -q -p storlab-cli -- validate --markdown "$md" >target/scorecard.txt 2>&1 || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "gen-scorecard: storlab validate failed (exit $status); output in target/scorecard.txt" >&2
    exit "$status"
fi
awk -v md="$md" -v begin="$begin" -v end="$end" '
    $0 == begin { print; while ((getline line < md) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
' README.md >README.md.scorecard.tmp
mv README.md.scorecard.tmp README.md
grep -E '^[0-9]+ figures: ' target/scorecard.txt
echo "README.md: scorecard block refreshed from $md"
