#!/usr/bin/env bash
# Checks the deployment files under deploy/: Prometheus config and alert rules (promtool, with
# the unit tests of alerts_test.yml), the systemd unit and its sysusers/tmpfiles snippets
# (systemd-analyze verify, systemd-sysusers, systemd-tmpfiles), the YAML (yamllint), the
# Grafana dashboard (JSON, datasource variable, every PromQL expression through promtool), the
# invariants that tie the files together (one lock dir everywhere, stop timeouts above the
# shutdown grace, probes on the gRPC port, ...), and, given a provd binary, every provd command
# line and config file they contain (`provd serve ... --print-config`) and the container's
# runtime packages against the binary's shared libraries.
#
# Usage: scripts/check-deploy.sh [PATH_TO_PROVD]
# Needs (Debian 12): prometheus (promtool), yamllint, systemd (systemd-analyze), python3.
#   apt-get install --no-install-recommends prometheus yamllint
# Uses kubectl (kustomize build) when it is installed. Prints one line per check and exits 1 if
# any check failed; runs as a ctest test in CI.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
provd=${1:-}
# Absolute: the systemd unit under test gets it as its ExecStart.
[ -n "$provd" ] && provd=$(readlink -f "$provd")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
skipped=0

pass() { echo "ok    $1"; passed=$((passed + 1)); }
fail() {
  echo "FAIL  $1"
  [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/      /'
  failed=$((failed + 1))
}
skip() { echo "skip  $1"; skipped=$((skipped + 1)); }

# check DESCRIPTION COMMAND...: passes when the command exits 0; its output is shown on failure.
check() {
  local what=$1 out
  shift
  if out=$("$@" 2>&1); then pass "$what"; else fail "$what" "$out"; fi
}

# check_quiet DESCRIPTION COMMAND...: also fails when the command prints anything (tools that
# report problems as warnings with exit status 0, like systemd-analyze verify).
check_quiet() {
  local what=$1 out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ] && [ -z "$out" ]; then pass "$what"; else fail "$what (exit $rc)" "$out"; fi
}

have() {
  if command -v "$1" >/dev/null 2>&1; then return 0; fi
  fail "$1 is not installed (Debian package: $2)"
  return 1
}

# A Python 3 with PyYAML: the one on PATH, else yamllint's own interpreter.
python=
for candidate in python3 /usr/bin/python3 "$(sed -n '1s/^#!//p' "$(command -v yamllint 2>/dev/null || echo /dev/null)" 2>/dev/null)"; do
  if [ -n "$candidate" ] && "$candidate" -c 'import yaml' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done

echo "check-deploy: checking deploy/ in $root"

# ---- Prometheus ----------------------------------------------------------------------------
if have promtool prometheus; then
  check "promtool check config deploy/prometheus/prometheus.yml (with its rule files)" \
    promtool check config deploy/prometheus/prometheus.yml
  check "promtool check rules deploy/prometheus/alerts.yml" \
    promtool check rules deploy/prometheus/alerts.yml
  check "promtool test rules deploy/prometheus/alerts_test.yml" \
    promtool test rules deploy/prometheus/alerts_test.yml
  # Debian's Prometheus is built without Kubernetes service discovery: find out first.
  printf 'scrape_configs:\n  - job_name: probe\n    kubernetes_sd_configs:\n      - role: pod\n' \
    >"$tmp/k8s-sd-probe.yml"
  if promtool check config "$tmp/k8s-sd-probe.yml" >/dev/null 2>&1; then
    check "promtool check config deploy/prometheus/prometheus-kubernetes.yml" \
      promtool check config deploy/prometheus/prometheus-kubernetes.yml
  else
    skip "promtool check config deploy/prometheus/prometheus-kubernetes.yml: this promtool has no kubernetes_sd_configs (Debian builds it without); yamllint checks the file below"
  fi
fi

# ---- YAML ----------------------------------------------------------------------------------
if have yamllint yamllint; then
  mapfile -t yaml_files < <(find deploy/kubernetes deploy/prometheus -name '*.y*ml' | sort)
  check "yamllint -s -c deploy/.yamllint on ${#yaml_files[@]} files in deploy/kubernetes, deploy/prometheus" \
    yamllint -s -f parsable -c deploy/.yamllint deploy/.yamllint "${yaml_files[@]}"
fi

# ---- Grafana dashboard ---------------------------------------------------------------------
dashboard=deploy/grafana/provd-dashboard.json
if have python3 python3; then
  check "python3 -m json.tool $dashboard" python3 -m json.tool "$dashboard"
  # Structure, and every query turned into a recording rule for promtool's PromQL parser.
  if out=$(python3 - "$dashboard" "$tmp/dashboard-rules.yml" 2>&1 <<'PY'
import json
import sys

dashboard = json.load(open(sys.argv[1]))
errors = []
if dashboard.get("schemaVersion", 0) < 36:
    errors.append(f"schemaVersion {dashboard.get('schemaVersion')} < 36")
variables = {v["name"]: v for v in dashboard.get("templating", {}).get("list", [])}
if variables.get("DS_PROMETHEUS", {}).get("type") != "datasource":
    errors.append("no datasource variable DS_PROMETHEUS")
for name, variable in variables.items():
    if variable.get("type") == "query" and variable.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}":
        errors.append(f"variable {name}: datasource is not ${{DS_PROMETHEUS}}")
ids, exprs = set(), []

def walk(panels):
    for panel in panels:
        title = panel.get("title", "?")
        if panel.get("id") in ids:
            errors.append(f"panel {title!r}: duplicate id {panel.get('id')}")
        ids.add(panel.get("id"))
        if "gridPos" not in panel:
            errors.append(f"panel {title!r}: no gridPos")
        if panel.get("type") != "row":
            uid = panel.get("datasource", {}).get("uid")
            if uid != "${DS_PROMETHEUS}":
                errors.append(f"panel {title!r}: datasource {uid!r}, not ${{DS_PROMETHEUS}}")
            if not panel.get("targets"):
                errors.append(f"panel {title!r}: no queries")
        for target in panel.get("targets", []):
            if target.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}":
                errors.append(f"panel {title!r}: query {target.get('refId')} not on ${{DS_PROMETHEUS}}")
            exprs.append(target["expr"])
        walk(panel.get("panels", []))

walk(dashboard.get("panels", []))
with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, expr in enumerate(exprs):
        expr = (expr.replace("$__rate_interval", "5m").replace("$job", "provd")
                .replace("$instance", ".*"))
        out.write(f"      - record: dashboard:query{i}\n        expr: {json.dumps(expr)}\n")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"{len(exprs)} queries")
PY
  ); then
    pass "$dashboard: schemaVersion, \${DS_PROMETHEUS} on every panel and variable, unique ids ($out)"
    if command -v promtool >/dev/null 2>&1; then
      check "$dashboard: every query parses (promtool check rules)" \
        promtool check rules "$tmp/dashboard-rules.yml"
    fi
  else
    fail "$dashboard: structure" "$out"
  fi
fi

# Every provd_* metric the alerts and the dashboard use is one docs/operations.md documents.
missing=
mapfile -t metrics < <(grep -ohE 'provd_[a-z0-9_]+' deploy/prometheus/alerts.yml "$dashboard" |
  sed -E 's/_(bucket|sum|count)$//' | sort -u)
for metric in "${metrics[@]}"; do
  grep -qs "\`$metric\`" docs/operations.md || missing="$missing $metric"
done
if [ -z "$missing" ]; then
  pass "alerts and dashboard use only the metrics docs/operations.md lists"
else
  fail "metrics used by alerts/dashboard but not listed in docs/operations.md:$missing"
fi

# ---- systemd -------------------------------------------------------------------------------
unit=deploy/systemd/provd.service
if have systemd-analyze systemd; then
  # verify insists that ExecStart's binary exists: check a copy that runs the given provd, or
  # /bin/true, instead of /usr/local/bin/provd. No systemd as PID 1 is needed.
  mkdir -p "$tmp/unit"
  exec_binary=${provd:-$(command -v true)}
  if grep -q '^ExecStart=/usr/local/bin/provd serve ' "$unit"; then
    sed "s#^ExecStart=/usr/local/bin/provd #ExecStart=$exec_binary #" "$unit" >"$tmp/unit/provd.service"
    check_quiet "systemd-analyze verify $unit (ExecStart binary: $exec_binary)" \
      systemd-analyze verify --man=no "$tmp/unit/provd.service"
  else
    fail "$unit: no ExecStart=/usr/local/bin/provd serve ... line"
  fi
fi
if [ "$(id -u)" -eq 0 ] && command -v systemd-sysusers >/dev/null && command -v systemd-tmpfiles >/dev/null; then
  # Applied to an empty root directory, not to this host.
  sysroot=$tmp/sysroot
  mkdir -p "$sysroot/etc/sysusers.d" "$sysroot/etc/tmpfiles.d" "$sysroot/run"
  cp deploy/systemd/provd.sysusers "$sysroot/etc/sysusers.d/provd.conf"
  cp deploy/systemd/provd.tmpfiles "$sysroot/etc/tmpfiles.d/provd.conf"
  check "systemd-sysusers --root=TMP deploy/systemd/provd.sysusers (user and group provd, 10001)" \
    bash -c "systemd-sysusers --root='$sysroot' &&
             grep -qx 'provd:x:10001:10001:.*' '$sysroot/etc/passwd' &&
             grep -qx 'provd:x:10001:.*' '$sysroot/etc/group'"
  check "systemd-tmpfiles --root=TMP --create deploy/systemd/provd.tmpfiles (/run/provd-locks 2770)" \
    bash -c "systemd-tmpfiles --root='$sysroot' --create &&
             [ \"\$(stat -c '%a %u %g' '$sysroot/run/provd-locks')\" = '2770 10001 10001' ]"
else
  skip "systemd-sysusers / systemd-tmpfiles on deploy/systemd/provd.{sysusers,tmpfiles}: needs root"
fi

# ---- invariants across the files -----------------------------------------------------------
if [ -z "$python" ]; then
  fail "cross-file checks: no python3 with PyYAML (Debian: python3-yaml, which yamllint brings)"
elif out=$("$python" - "$tmp" 2>&1 <<'PY'
import json
import os
import re
import shlex
import sys

import yaml

tmp = sys.argv[1]
errors = []

def toml_value(text, key):
    m = re.search(rf'^\s*{key}\s*=\s*"?([^"\n]*)"?\s*$', text, re.M)
    return m.group(1) if m else None

unit = open("deploy/systemd/provd.service").read()
example = open("deploy/systemd/provd.toml").read()
dockerfile = open("deploy/container/Dockerfile").read()

def unit_value(key):
    m = re.search(rf"^{key}=(.*)$", unit, re.M)
    return m.group(1).strip() if m else None

# One lock dir for every provd on a host: the unit, tmpfiles, the image, the pods.
exec_start = shlex.split(unit_value("ExecStart"))
lock_dir = exec_start[exec_start.index("--lock-dir") + 1] if "--lock-dir" in exec_start else None
if lock_dir is None:
    errors.append("provd.service: ExecStart has no --lock-dir (the default is in /tmp, which PrivateTmp hides)")
elif lock_dir.startswith("/tmp/") or lock_dir.startswith("/var/tmp/"):
    errors.append(f"provd.service: lock dir {lock_dir} is in a PrivateTmp directory")
if lock_dir and f"/run/{unit_value('RuntimeDirectory')}" != lock_dir:
    errors.append(f"provd.service: RuntimeDirectory={unit_value('RuntimeDirectory')} is not {lock_dir}")
if unit_value("RuntimeDirectoryPreserve") != "yes":
    errors.append("provd.service: RuntimeDirectoryPreserve=yes missing (stopping would delete a shared lock dir)")
tmpfiles = open("deploy/systemd/provd.tmpfiles").read().split()
if lock_dir not in tmpfiles:
    errors.append(f"provd.tmpfiles: does not create {lock_dir}")
entrypoint = json.loads(re.search(r"^ENTRYPOINT (\[.*?\])", dockerfile, re.M | re.S).group(1)
                        .replace("\\\n", ""))
with open(os.path.join(tmp, "entrypoint.json"), "w") as f:
    json.dump(entrypoint, f)
if "--lock-dir" not in entrypoint or entrypoint[entrypoint.index("--lock-dir") + 1] != lock_dir:
    errors.append(f"Dockerfile: ENTRYPOINT's --lock-dir is not {lock_dir}")
with open(os.path.join(tmp, "unit-exec-start.json"), "w") as f:
    json.dump([a for a in exec_start if not a.startswith("$")], f)

# Stopping: TimeoutStopSec above the grace (plus the ~2 s of the metrics endpoint and margin).
grace = int(toml_value(example, "shutdown_grace") or 30)
timeout_stop = int(unit_value("TimeoutStopSec") or 90)
if timeout_stop < grace + 5:
    errors.append(f"provd.service: TimeoutStopSec={timeout_stop} < shutdown_grace {grace} + 5")

# Kubernetes.
def load_all(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]

for kustomization in ["deploy/kubernetes/kustomization.yaml", "deploy/kubernetes/base/kustomization.yaml",
                      "deploy/kubernetes/statefulset/kustomization.yaml"]:
    base = os.path.dirname(kustomization)
    for resource in load_all(kustomization)[0].get("resources", []):
        path = os.path.normpath(os.path.join(base, resource))
        if not (os.path.isfile(path) or os.path.isfile(os.path.join(path, "kustomization.yaml"))):
            errors.append(f"{kustomization}: resource {resource} does not exist")

configmap = load_all("deploy/kubernetes/base/configmap.yaml")[0]
pod_toml = configmap["data"]["provd.toml"]
with open(os.path.join(tmp, "configmap-provd.toml"), "w") as f:
    f.write(pod_toml)
pod_grace = int(toml_value(pod_toml, "shutdown_grace") or 30)
pod_lock_dir = toml_value(pod_toml, "lock_dir")
pod_port = int(toml_value(pod_toml, "listen").rsplit(":", 1)[1])
pod_metrics_port = int(toml_value(pod_toml, "metrics_listen").rsplit(":", 1)[1])
if pod_lock_dir != lock_dir:
    errors.append(f"configmap.yaml: lock_dir {pod_lock_dir} is not the hosts' {lock_dir}")

workloads = []
for path in ["deploy/kubernetes/daemonset.yaml", "deploy/kubernetes/statefulset/statefulset.yaml"]:
    for doc in load_all(path):
        if doc.get("kind") in ("DaemonSet", "StatefulSet"):
            workloads.append((path, doc))
if len(workloads) != 2:
    errors.append(f"expected a DaemonSet and a StatefulSet, found {len(workloads)} workloads")
for path, doc in workloads:
    where = f"{path} ({doc['kind']})"
    spec = doc["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    if not spec.get("securityContext", {}).get("runAsNonRoot"):
        errors.append(f"{where}: pod securityContext.runAsNonRoot is not true")
    if spec.get("terminationGracePeriodSeconds", 30) < pod_grace + 5:
        errors.append(f"{where}: terminationGracePeriodSeconds < shutdown_grace {pod_grace} + 5")
    provd_containers = [c for c in spec["containers"] if c["name"] == "provd"]
    if len(provd_containers) != 1:
        errors.append(f"{where}: no container named provd")
        continue
    c = provd_containers[0]
    sc = c.get("securityContext", {})
    if not (sc.get("readOnlyRootFilesystem") and sc.get("allowPrivilegeEscalation") is False
            and "ALL" in sc.get("capabilities", {}).get("drop", [])):
        errors.append(f"{where}: provd container lacks readOnlyRootFilesystem / "
                      "allowPrivilegeEscalation: false / capabilities.drop [ALL]")
    if c.get("command") != ["/usr/local/bin/provd", "serve", "--config", "/etc/provd/provd.toml"]:
        errors.append(f"{where}: command is not provd serve --config /etc/provd/provd.toml")
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    if volumes.get(mounts.get("/etc/provd"), {}).get("configMap", {}).get("name") != configmap["metadata"]["name"]:
        errors.append(f"{where}: /etc/provd is not the ConfigMap {configmap['metadata']['name']}")
    lock_volume = volumes.get(mounts.get(pod_lock_dir), {})
    if lock_volume.get("hostPath", {}).get("path") != lock_dir:
        errors.append(f"{where}: {pod_lock_dir} is not the hostPath {lock_dir}")
    token = toml_value(pod_toml, "auth_token_file")
    if token and os.path.dirname(token) not in mounts:
        errors.append(f"{where}: auth_token_file {token} is not on a mounted volume")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
    if ports.get("grpc") != pod_port or ports.get("metrics") != pod_metrics_port:
        errors.append(f"{where}: container ports do not match listen/metrics_listen")
    readiness = c.get("readinessProbe", {}).get("grpc", {})
    liveness = c.get("livenessProbe", {}).get("grpc", {})
    if readiness.get("port") != pod_port or readiness.get("service") != "provd.v1.Prover":
        errors.append(f"{where}: readiness probe is not gRPC health of provd.v1.Prover on {pod_port}")
    if liveness.get("port") != pod_port or liveness.get("service", "") != "":
        errors.append(f"{where}: liveness probe is not gRPC health of the server on {pod_port}")
    if "nvidia.com/gpu" not in c.get("resources", {}).get("limits", {}):
        errors.append(f"{where}: no nvidia.com/gpu limit")

if errors:
    print("\n".join(errors))
    sys.exit(1)
PY
); then
  pass "one lock dir everywhere (unit, tmpfiles, image, ConfigMap, hostPaths); stop timeouts > shutdown_grace + 5 s; pods: probes, ports, mounts, securityContext"
else
  fail "invariants across deploy/" "$out"
fi

if command -v kubectl >/dev/null 2>&1; then
  check "kubectl kustomize deploy/kubernetes" kubectl kustomize deploy/kubernetes
  check "kubectl kustomize deploy/kubernetes/statefulset" kubectl kustomize deploy/kubernetes/statefulset
else
  skip "kubectl kustomize deploy/kubernetes{,/statefulset}: kubectl is not installed"
fi

# ---- provd command lines and config files (needs the binary) -------------------------------
print_config() {  # print_config ARGS...: provd ARGS --print-config --data-dir TMP, must print JSON
  local out
  out=$("$provd" "$@" --print-config --data-dir "$tmp/data" 2>&1) || { echo "$out"; return 1; }
  printf '%s' "$out" | python3 -m json.tool >/dev/null || { echo "not JSON: $out"; return 1; }
}

if [ -z "$provd" ]; then
  skip "provd serve --print-config on deploy/systemd/provd.toml, the unit's, the image's and the pods' command lines: no provd binary given (scripts/check-deploy.sh PATH_TO_PROVD)"
  skip "container runtime packages against provd's shared libraries: no provd binary given"
elif [ ! -x "$provd" ]; then
  fail "$provd is not an executable"
else
  check "provd serve --config deploy/systemd/provd.toml --print-config" \
    print_config serve --config deploy/systemd/provd.toml
  # The settings the example leaves commented out must be valid names too. Files must exist
  # for provd to accept them: flags (which win) point those at a scratch file.
  sed -E 's/^#([a-z_]+ = )/\1/' deploy/systemd/provd.toml >"$tmp/provd-all.toml"
  : >"$tmp/file"
  check "provd serve --config provd.toml with its commented-out settings enabled --print-config" \
    print_config serve --config "$tmp/provd-all.toml" --tls-cert "$tmp/file" --tls-key "$tmp/file" \
    --tls-client-ca "$tmp/file" --auth-token-file "$tmp/file"
  if [ -f "$tmp/unit-exec-start.json" ]; then
    mapfile -t unit_args < <(python3 -c '
import json, sys
args = json.load(open(sys.argv[1]))[1:]
print("\n".join("deploy/systemd/provd.toml" if a == "/etc/provd/provd.toml" else a for a in args))
' "$tmp/unit-exec-start.json")
    check "provd.service's ExecStart (${unit_args[*]}) --print-config" print_config "${unit_args[@]}"
    # Less --data-dir, which print_config gives.
    mapfile -t image_args < <(python3 -c '
import json, sys
args = json.load(open(sys.argv[1]))[1:]
if "--data-dir" in args:
    del args[args.index("--data-dir"):args.index("--data-dir") + 2]
print("\n".join(args))' "$tmp/entrypoint.json")
    check "the image's ENTRYPOINT (${image_args[*]}) --print-config" print_config "${image_args[@]}"
    check "the pods' provd serve --config <ConfigMap provd.toml> --print-config (token file: scratch)" \
      print_config serve --config "$tmp/configmap-provd.toml" --auth-token-file "$tmp/file"
    sed -E 's/^(\s*)#([a-z_]+ = )/\1\2/' "$tmp/configmap-provd.toml" >"$tmp/configmap-all.toml"
    check "the ConfigMap's provd.toml with its commented-out settings enabled --print-config" \
      print_config serve --config "$tmp/configmap-all.toml" --tls-cert "$tmp/file" \
      --tls-key "$tmp/file" --tls-client-ca "$tmp/file" --auth-token-file "$tmp/file"
  else
    fail "provd command lines of the unit and the image: the cross-file checks did not extract them"
  fi

  # Every shared library of provd (and provctl next to it) must come from a package the image's
  # runtime stage installs (or from debian:12-slim itself).
  if command -v dpkg >/dev/null 2>&1 && command -v ldd >/dev/null 2>&1; then
    provctl=$(readlink -f "$(dirname "$provd")/../client/provctl")
    binaries=("$provd")
    [ -x "$provctl" ] && binaries+=("$provctl")
    runtime_stage=$(sed -n '/^FROM debian:12-slim/,/^FROM\|^COPY/p' deploy/container/Dockerfile)
    # The packages named there and what apt installs with them: their Depends and Pre-Depends,
    # recursively (libpq5 brings Kerberos and LDAP), as dpkg records them on this host.
    listed=$(grep -o '\blib[a-z0-9.+-]*\|\bca-certificates\b' <<<"$runtime_stage" | sort -u)
    runtime_packages=" "
    pending=$listed
    while [ -n "$pending" ]; do
      next=
      for package in $pending; do
        [[ "$runtime_packages" == *" $package "* ]] && continue
        runtime_packages="$runtime_packages$package "
        next="$next $(dpkg-query -W -f='${Depends}, ${Pre-Depends}\n' "$package" 2>/dev/null |
          tr ',|' '\n\n' | sed 's/([^)]*)//g; s/:any//g; s/^ *//; s/ *$//' | grep -v '^$')"
      done
      pending=$next
    done
    missing=
    for lib in $(ldd "${binaries[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do
      case $(basename "$lib") in
        libc.so.* | libm.so.* | libgcc_s.so.* | libstdc++.so.* | libpthread.so.* | libdl.so.* | librt.so.*) continue ;;
        libasan.so.* | libubsan.so.* | liblsan.so.* | libtsan.so.*) continue ;;  # sanitizer builds
      esac
      real=$(readlink -f "$lib")
      package=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null)
      package=${package%%:*}
      if [ -z "$package" ]; then
        missing="$missing $(basename "$lib")(no Debian package)"
      elif [[ "$runtime_packages" != *" $package "* ]] && [[ " $missing " != *" $package "* ]]; then
        missing="$missing $package"
      fi
    done
    if [ -z "$missing" ]; then
      pass "deploy/container/Dockerfile's runtime stage installs every shared library of ${binaries[*]}"
    else
      fail "deploy/container/Dockerfile's runtime stage lacks packages for these libraries:$missing"
    fi
  else
    skip "container runtime packages against provd's shared libraries: needs dpkg and ldd"
  fi
fi

echo "check-deploy: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
