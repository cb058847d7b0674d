#!/usr/bin/env bash
# End-to-end tests of `squeeze inventory` (issue 7): the real binary on the recordings of
# tests/recordings/inventory. CTest runs one case per test (tests/CMakeLists.txt); by hand:
#   bash tests/cli_inventory_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"
REC="$SOURCE/tests/recordings/inventory"

# Every source at once: the JSON lists each GPU once with the right fields; the table groups them.
case_all_sources() {
  local sources=(--nvidia-smi-csv "$REC/nvidia-smi-a100-535.csv"
    --nvidia-smi-csv "$REC/nvidia-smi-h100-550-noheader.csv"
    --nvidia-smi-csv "$REC/nvidia-smi-v100-470.csv"
    --nvidia-smi-xml "$REC/nvidia-smi-rtx4090-550.xml"
    --kubectl-json "$REC/kubectl-nodes.json" --kubectl-describe "$REC/kubectl-describe-nodes.txt"
    --sinfo-json "$REC/sinfo-east-live-busy.json"
    --scontrol-nodes "$REC/scontrol-nodes-models-oneliner.txt")
  run inv inventory "${sources[@]}" --json
  expect_ok inv
  "$PYTHON" - "$WORK/inv.out" <<'PY' || fail "inventory JSON check failed"
import collections, json, sys
gpus = json.load(open(sys.argv[1]))["gpus"]
by_source = collections.Counter(g["source"] for g in gpus)
# kubectl describe's gpu-a100-0 is kubectl JSON's too: its 8 GPUs are counted once.
want = {"nvidia-smi-csv": 20, "nvidia-smi-xml": 2, "kubectl-json": 24, "kubectl-describe": 4,
        "sinfo-json": 4, "scontrol-nodes": 16}
assert by_source == want, by_source
for g in gpus:
    assert set(g) >= {"node", "index", "model", "memory_mib", "utilization"}, g
    assert g["utilization"] is None or 0 <= g["utilization"] <= 1, g
h100 = [g for g in gpus if g["model"] == "NVIDIA H100 80GB HBM3"]
assert len(h100) == 8 and h100[0]["memory_mib"] == 81559 and h100[0]["utilization"] == 0.87, h100[0]
assert h100[0]["node"] == "nvidia-smi-h100-550-noheader", h100[0]
k8s = [g for g in gpus if g["source"] == "kubectl-json"]
assert all(g["utilization"] is None for g in k8s)
east = [g for g in gpus if g["node"] == "east-n0"]
assert [g["allocated"] for g in east] == [True, True, False, False], east
print("inventory JSON ok:", dict(by_source))
PY
  expect_in "$WORK/inv.err" "8 GPUs given by more than one source (same node and index) counted once"
  run table inventory "${sources[@]}"
  expect_ok table
  expect_in "$WORK/table.out" "model" "allocated" "mean util" "NVIDIA A100-SXM4-80GB" "81920 MiB"
  pass
}

# A pool file from nvidia-smi and kubectl recordings, read by squeeze simulate.
case_pool_file_simulate() {
  run inv inventory --nvidia-smi-csv "$REC/nvidia-smi-a100-535.csv" \
    --nvidia-smi-xml "$REC/nvidia-smi-rtx4090-550.xml" \
    --kubectl-json "$REC/kubectl-nodes.json" --pool-file "$WORK/pools.yaml"
  expect_ok inv
  expect_in "$WORK/pools.yaml" 'name: "nvidia-a100-sxm4-80gb"' 'name: "nvidia-h100-80gb-hbm3"' \
    'gpu_model: "NVIDIA GeForce RTX 4090"' 'gpu_memory_mib: 24564'
  cat >"$WORK/jobs.csv" <<'CSV'
id,submit_time,duration,gpus,pool,gpu_models,min_gpu_memory_mib
1,0,1h,8,nvidia-a100-sxm4-80gb,,
2,0,30m,16,nvidia-h100-80gb-hbm3,,
3,60,2h,1,,NVIDIA GeForce RTX 4090,20000
4,120,20m,2,,,
CSV
  run sim simulate --cluster "$WORK/pools.yaml" --trace "$WORK/jobs.csv" --json "$WORK/sim.json"
  expect_ok sim
  "$PYTHON" - "$WORK/sim.json" <<'PY' || fail "simulate JSON check failed"
import json, sys
doc = json.load(open(sys.argv[1]))
r = doc["results"][0]
assert doc["jobs"] == 4 and r["jobs"] == 4 and r["rejected"] == 0, r
print("simulate on the inventory's pool file ok: 4 jobs, none rejected")
PY
  expect_in "$WORK/sim.out" "squeeze"
  if grep -q "rejected" "$WORK/sim.err"; then fail "jobs rejected: $(cat "$WORK/sim.err")"; fi
  pass
}

# What inventory writes, export reads: a pool file with nvidia-smi's model names (spaces) is
# exported for Kueue and Volcano, the model labelled as GPU feature discovery labels it.
case_pool_file_export() {
  run inv inventory --nvidia-smi-csv "$REC/nvidia-smi-a100-535.csv" \
    --nvidia-smi-xml "$REC/nvidia-smi-rtx4090-550.xml" --pool-file "$WORK/pools.yaml"
  expect_ok inv
  expect_in "$WORK/pools.yaml" 'gpu_model: "NVIDIA GeForce RTX 4090"'
  run kueue export kueue --cluster "$WORK/pools.yaml" -o "$WORK/kueue.yaml"
  expect_ok kueue
  expect_in "$WORK/kueue.yaml" "kind: ResourceFlavor" "owned-nvidia-geforce-rtx-4090" \
    "nvidia.com/gpu.product: NVIDIA-GeForce-RTX-4090" \
    "nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB"
  run volcano export volcano --cluster "$WORK/pools.yaml" -o "$WORK/volcano.yaml"
  expect_ok volcano
  pass
}

# Broken recordings: a non-zero exit and a message naming the file, the field and the value.
case_broken_fixture() {
  run bad inventory --nvidia-smi-csv "$REC/nvidia-smi-broken-unit.csv"
  expect_error bad
  expect_in "$WORK/bad.err" "nvidia-smi-broken-unit.csv: nvidia-smi CSV line 2: memory.total: value '24 GB'"
  head -c 700 "$REC/kubectl-nodes.json" >"$WORK/truncated.json"
  run trunc inventory --kubectl-json "$WORK/truncated.json"
  expect_error trunc
  expect_in "$WORK/trunc.err" "truncated.json: kubectl JSON line" "not valid JSON"
  pass
}

# No file and no nvidia-smi here: a clear message, not a crash.
case_no_nvidia_smi() {
  run local inventory --nvidia-smi /nonexistent/nvidia-smi
  expect_error local
  expect_in "$WORK/local.err" "nvidia-smi is not on this machine" "--nvidia-smi-csv FILE"
  pass
}

run_case
