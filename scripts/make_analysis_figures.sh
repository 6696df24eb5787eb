#!/bin/sh
# Regenerate the README's analysis figures (docs/analysis_*.png) from the sample data.
# Usage: sh scripts/make_analysis_figures.sh [WORKDIR]   (run from the repository root)
set -eu
W=${1:-$(mktemp -d)}
PY=${PYTHON:-python}
NM="$PY -m napari_mood.cli"
M="$PY scripts/demo_methods.py"
export TEMPLATE=sample_data/toy/brain_000.nii.gz   # a normal case: the "healthy anatomy"
mkdir -p "$W/scan" && cp sample_data/toy/brain_005.nii.gz "$W/scan/normal.nii.gz"

run_all() {  # run_all DATASET PREDS: the three methods, pixel and sample task
  for kind in bright edges template; do
    $NM run "$M $kind" "$1/toy" --out "$2/$kind" --quiet --force > /dev/null
    $NM run "$M $kind" "$1/toy" --out "$2/$kind" --task sample --quiet --force > /dev/null
  done
}

# size and contrast sweeps (the brain preset's radii exceed this 2-mm scan: 0-40 in 4s)
$NM sweep size "$W/scan/normal.nii.gz" --out "$W/size" --radii 0:40:4 --force > /dev/null
$NM sweep contrast "$W/scan/normal.nii.gz" --out "$W/contrast" --radius 10 --force > /dev/null
for s in size contrast; do
  run_all "$W/$s" "$W/$s-preds"
  $NM sweep-report "$W/$s" --preds "$W/$s-preds" --out "$W/$s-report" --plot-formats png --quiet \
    --force --title "$s sweep (sample brain, 3 toy methods)" > /dev/null
  cp "$W/$s-report/sweep_ap.png" "docs/analysis_sweep_$s.png"
done

# categories of the sample data (from sample_data/cases.json)
cat > "$W/categories.csv" <<'CSV'
case,category,subcategory,order
brain_000,normal,,
brain_005,normal,,
brain_001,local,sphere+cube,1
brain_003,local,slab+sphere,2
brain_006,local,cube+pet,3
brain_002,texture,shuffle,4
brain_004,intensity,pet,5
CSV
$NM categories sample_data --categories "$W/categories.csv" --out "$W/categories" \
  --plot-formats png --seed 0 --quiet --force > /dev/null
cp "$W/categories/subcategory_sample_ap.png" docs/analysis_categories.png

# rankings: the sample data's own methods (pixel and sample task), bootstrap of the batches
$NM evaluate sample_data --batches 50 --batch-size 3 --format json --out "$W/sample.json" --quiet --force
$NM rank brain="$W/sample.json" --bootstrap 1000 --seed 0 --out "$W/rank" --plot-formats png --force
cp "$W/rank/rank_stability.png" docs/analysis_rank.png

# toy vs test: the demo methods on the sample data and a simulated set, toy = another one
run_all sample_data "$W/brain-preds"
$NM simulate "$W/scan/normal.nii.gz" --out "$W/sim" --kind mixed --count 8 --normal 4 --seed 1 --force > /dev/null
$NM simulate "$W/scan/normal.nii.gz" --out "$W/toy" --kind mixed --count 4 --normal 2 --seed 2 --force > /dev/null
run_all "$W/sim" "$W/sim-preds"
run_all "$W/toy" "$W/toy-preds"
$NM evaluate sample_data --preds "$W/brain-preds" --batches 50 --batch-size 4 --format json --out "$W/brain.json" --quiet --force
$NM evaluate "$W/sim" --preds "$W/sim-preds" --batches 50 --batch-size 6 --format json --out "$W/sim.json" --quiet --force
$NM evaluate "$W/toy" --preds "$W/toy-preds" --batches 20 --batch-size 3 --format json --out "$W/toy.json" --quiet --force
$NM rank brain="$W/brain.json" simulated="$W/sim.json" --toy toy="$W/toy.json"
echo "figures written; work files in $W"
