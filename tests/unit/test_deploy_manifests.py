"""The deploy stacks hold together: the NATS configurations start a real nats-server's
config check, the per-service users are the ones `croupier nats config` generates, the
compose stack and the Kubernetes manifests parse and reference only what exists, and
the shape the replicas rely on is there (three routed JetStream nodes with R3 streams,
two dealer replicas with distinct ids and a disruption budget, each service mounting
only its own signing key).

No Docker or Kubernetes API is needed: the files are read as their tools would read
them, and each check names the file and the thing that is wrong."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from croupier.bus.embedded import server_binary
from croupier.bus.permissions import authorization_block
from croupier.games.registry import variants
from croupier.store.roles import GRANTS

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "docker-compose.yml"
K8S = ROOT / "k8s"
SIGNING = ("dealer", "rules", "settlement", "log")


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


# -- NATS ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("conf", "name_var"),
    [
        (ROOT / "deploy" / "nats", "NATS_SERVER_NAME"),
        (K8S / "base" / "nats", "POD_NAME"),
        (K8S / "overlays" / "dev" / "nats", "POD_NAME"),
    ],
    ids=["compose", "k8s", "k8s-dev"],
)
def test_nats_configuration_passes_the_servers_own_check(
    conf: Path, name_var: str, tmp_path: Path
) -> None:
    """``nats-server -t`` parses the file as the server would start from it (cluster
    routes, JetStream limits, TLS files, the included users); only the absolute TLS
    paths are pointed at dev material here."""
    from croupier.auth import init_dev

    auth = init_dev(tmp_path / "auth")
    text = (conf / "nats.conf").read_text(encoding="utf-8")
    text = text.replace("/auth/", f"{auth.root}/").replace('"/data"', f'"{tmp_path / "js"}"')
    (tmp_path / "nats.conf").write_text(text, encoding="utf-8")
    shutil.copy(conf / "auth.conf", tmp_path / "auth.conf")
    env = {name_var: "nats-0"}
    env |= {f"CROUPIER_NATS_{u.upper()}_PASSWORD": f"pw-{u}" for u in _users(conf / "auth.conf")}
    r = subprocess.run(
        [server_binary(), "-t", "-c", str(tmp_path / "nats.conf")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # three nodes routed to each other, JetStream on
    routes = re.findall(r"nats-route://([^:\s]+):6222", text)
    assert len(set(routes)) == 3, routes
    assert "jetstream {" in text


def _users(auth_conf: Path) -> list[str]:
    return re.findall(r'user: "([a-z_]+)"', auth_conf.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "conf", [ROOT / "deploy", K8S / "base", K8S / "overlays" / "dev"], ids=["compose", "k8s", "dev"]
)
def test_the_shipped_nats_users_are_the_generated_ones(conf: Path) -> None:
    """``auth.conf`` is what :func:`authorization_block` writes for every variant with
    passwords from the environment (regenerate with ``croupier nats config``)."""
    shipped = (conf / "nats" / "auth.conf").read_text(encoding="utf-8")
    users = _users(conf / "nats" / "auth.conf")
    assert set(users) == {"dealer", "rules", "settlement", "rules_settlement", "audit", "provision"}
    block = authorization_block(
        list(variants()), {u: f"$CROUPIER_NATS_{u.upper()}_PASSWORD" for u in users}
    )
    body = shipped[shipped.index("authorization {") :]
    assert _squash(body) == _squash(
        block.replace('"$CROUPIER', "$CROUPIER").replace('_PASSWORD"', "_PASSWORD")
    ), "auth.conf is out of date: regenerate it with `croupier nats config`"


def _squash(s: str) -> str:
    return " ".join(s.split())


# -- compose ---------------------------------------------------------------------------


def test_compose_stack_references_only_what_it_declares() -> None:
    doc = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services: dict[str, Any] = doc["services"]
    volumes = set(doc.get("volumes") or {})
    for name, svc in services.items():
        for dep in svc.get("depends_on") or {}:
            assert dep in services, f"{name} depends on undeclared service {dep}"
        for v in svc.get("volumes") or []:
            src = v.split(":")[0] if isinstance(v, str) else v.get("source", "")
            if src.startswith((".", "/")):
                assert (COMPOSE.parent / src).exists() or src.startswith("/"), (name, src)
            else:
                assert src in volumes, f"{name} mounts undeclared volume {src}"
    # three JetStream nodes, routed to each other by their service names
    nats = sorted(n for n in services if re.fullmatch(r"nats-\d", n))
    assert nats == ["nats-1", "nats-2", "nats-3"]
    conf = (COMPOSE.parent / "nats" / "nats.conf").read_text(encoding="utf-8")
    assert set(re.findall(r"nats-route://([^:\s]+):6222", conf)) == set(nats)
    # two dealer replicas with their own ids and addresses
    ids = {
        n: (services[n].get("environment") or {}).get("CROUPIER_DEALER_ID")
        for n in ("dealer", "dealer-b")
    }
    assert all(ids.values()) and len(set(ids.values())) == 2, ids
    # each signing service mounts its own key volume and no other's
    for svc, spec in services.items():
        keys = {
            v.split(":")[0]
            for v in spec.get("volumes") or []
            if isinstance(v, str) and v.startswith("croupier-keys-") and v.split(":")[1] == "/keys"
        }
        role = "dealer" if svc.startswith("dealer") else svc
        if role in SIGNING or role == "rules-settlement":
            assert keys == {f"croupier-keys-{role}"}, (svc, keys)
        else:
            assert not keys, f"{svc} mounts signing keys {keys}"
    # the one-pass process's volume holds the rules and the settlement keys, and no other
    keys_job = services["keys"]["command"][0]
    assert "cp /offline/rules.key /offline/settlement.key /out/rules-settlement/" in keys_job
    assert re.findall(r"cp [^\n]*/out/rules-settlement/", keys_job) == [
        "cp /offline/rules.key /offline/settlement.key /out/rules-settlement/"
    ]
    # every Croupier service (TLS to NATS, mutual TLS on gRPC) mounts the auth material
    # where CROUPIER_AUTH_DIR points: a service's own ``volumes`` replaces the anchor's
    for svc, spec in services.items():
        env = spec.get("environment") or {}
        if env.get("CROUPIER_AUTH_DIR") and (spec.get("command") or [""])[0] == "serve":
            mounts = [v for v in spec.get("volumes") or [] if isinstance(v, str)]
            assert f"croupier-auth:{env['CROUPIER_AUTH_DIR']}:ro" in mounts, (svc, mounts)
    # every Croupier service uses the replicated stream (anchors' ``<<:`` are merged)
    for n in ("dealer", "dealer-b", "rules", "settlement", "rules-settlement"):
        env = services[n].get("environment") or {}
        assert str(env.get("CROUPIER_STREAM_REPLICAS")) == "3", (n, env)
    # the one-pass process: off unless its profile is asked for, its own NATS user, the
    # settlement database role (which holds every grant the rules role has)
    one = services["rules-settlement"]
    assert one["profiles"] == ["one-pass"] and one["command"] == ["serve", "rules-settlement"]
    env = one["environment"]
    assert all(u.startswith("tls://rules_settlement:") for u in env["CROUPIER_NATS_URL"].split(","))
    assert "${CROUPIER_NATS_RULES_SETTLEMENT_PASSWORD" in env["CROUPIER_NATS_URL"]
    assert env["CROUPIER_DATABASE_URL"].startswith("postgresql+psycopg://croupier_settlement:")
    for table, privs in GRANTS["rules"].items():
        have = set(GRANTS["settlement"].get(table, "").split(", "))
        assert set(privs.split(", ")) <= have, (table, privs)


# -- Kubernetes ------------------------------------------------------------------------


def _kustomization(d: Path) -> dict[str, Any]:
    return dict(yaml.safe_load((d / "kustomization.yaml").read_text(encoding="utf-8")))


def _resources(d: Path) -> list[dict[str, Any]]:
    """Every object a kustomization's resources hold, overlays followed to their base."""
    k = _kustomization(d)
    out: list[dict[str, Any]] = []
    for r in k.get("resources") or []:
        p = (d / r).resolve()
        assert p.exists(), f"{d / 'kustomization.yaml'}: resource {r} does not exist"
        out += _resources(p) if p.is_dir() else _docs(p)
    return out


@pytest.mark.parametrize("overlay", ["base", "overlays/dev", "overlays/prod"])
def test_kustomizations_reference_files_and_objects_that_exist(overlay: str) -> None:
    d = K8S / overlay
    objs = _resources(d)
    assert objs
    k = _kustomization(d)
    have = {(o["kind"], o["metadata"]["name"]) for o in objs}
    for p in k.get("patches") or []:
        if "path" in p:
            assert (d / p["path"]).exists(), p["path"]
            for doc in _docs(d / p["path"]):
                assert (doc["kind"], doc["metadata"]["name"]) in have, (p["path"], doc["kind"])
        target = p.get("target")
        if target:
            assert any(
                kind == target["kind"] and name == target.get("name", name) for kind, name in have
            ), target
    for gen in k.get("configMapGenerator") or []:
        for f in [*(gen.get("envs") or []), *(gen.get("files") or [])]:
            assert (d / f.split("=")[-1]).exists(), f
    for o in objs:
        assert o.get("apiVersion") and o.get("kind") and o["metadata"].get("name"), o


def test_the_replicated_shape_is_in_the_base() -> None:
    objs = {(o["kind"], o["metadata"]["name"]): o for o in _resources(K8S / "base")}
    dealer = objs[("Deployment", "dealer")]
    assert dealer["spec"]["replicas"] >= 2
    assert dealer["spec"]["strategy"]["type"] == "RollingUpdate"
    assert dealer["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    env = {e["name"] for e in dealer["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert {"CROUPIER_DEALER_ID", "CROUPIER_DEALER_ADDRESS", "CROUPIER_LEASE_TTL_MS"} <= env
    pdb = objs[("PodDisruptionBudget", "dealer")]
    labels = dealer["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pdb["spec"]["minAvailable"] == 1
    nats = objs[("StatefulSet", "nats")]
    assert nats["spec"]["replicas"] == 3
    conf = (K8S / "base" / "nats" / "nats.conf").read_text(encoding="utf-8")
    headless = nats["spec"]["serviceName"]
    assert set(re.findall(r"nats-route://([^:\s]+):6222", conf)) == {
        f"nats-{i}.{headless}" for i in range(3)
    }
    envfile = (K8S / "base" / "croupier.env").read_text(encoding="utf-8")
    assert re.search(r"^CROUPIER_STREAM_REPLICAS=3$", envfile, re.M)
    assert len(re.search(r"^CROUPIER_NATS_URL=(.*)$", envfile, re.M)[1].split(",")) == 3  # type: ignore[index]
    # network policies: one per component, default deny first
    policies = [o for o in _docs(K8S / "base" / "security" / "network-policies.yaml")]
    assert all(p["kind"] == "NetworkPolicy" for p in policies) and len(policies) >= 5


def test_each_pod_mounts_only_its_own_signing_key() -> None:
    patched = {
        d["metadata"]["name"]: d
        for f in (K8S / "base" / "security").glob("*.yaml")
        for d in _docs(f)
        if d["kind"] in ("Deployment", "StatefulSet", "Job")
    }
    base = {
        o["metadata"]["name"]: o
        for o in _resources(K8S / "base")
        if o["kind"] in ("Deployment", "StatefulSet", "Job")
    }
    for name, obj in base.items():
        vols = [
            *(obj["spec"]["template"]["spec"].get("volumes") or []),
            *(
                (patched.get(name) or {})
                .get("spec", {})
                .get("template", {})
                .get("spec", {})
                .get("volumes")
                or []
            ),
        ]
        secrets = [v["secret"]["secretName"] for v in vols if "secret" in v] + [
            src["secret"]["name"]
            for v in vols
            if "projected" in v
            for src in v["projected"]["sources"]
            if "secret" in src
        ]
        keys = {s for s in secrets if s.startswith("croupier-key-")}
        if name in SIGNING:
            assert keys == {f"croupier-key-{name}"}, (name, keys)
        else:
            assert not keys, f"{name} mounts signing keys {keys}"


def test_the_one_pass_component_runs_settlement_as_both_and_removes_rules() -> None:
    comp = K8S / "components" / "one-pass"
    k = _kustomization(comp)
    assert k["kind"] == "Component"
    base = {(o["kind"], o["metadata"]["name"]): o for o in _resources(K8S / "base")}
    deleted = set()
    for p in k["patches"]:
        docs = _docs(comp / p["path"]) if "path" in p else [yaml.safe_load(p["patch"])]
        for doc in docs:
            key = (doc["kind"], doc["metadata"]["name"])
            assert key in base, f"{comp}: patch of {key}, which the base does not hold"
            if doc.get("$patch") == "delete":
                deleted.add(key)
    assert {n for kind, n in deleted} == {"rules"}
    assert {kind for kind, _ in deleted} == {kind for kind, name in base if name == "rules"}, (
        "every object of the rule service goes, and nothing else"
    )
    patch = _docs(comp / "settlement.yaml")[0]
    spec = patch["spec"]["template"]["spec"]
    c = spec["containers"][0]
    assert c["args"] == ["serve", "rules-settlement"] and patch["spec"]["replicas"] >= 2
    env = {e["name"]: e for e in c["env"]}
    assert env["NATS_PASSWORD"]["valueFrom"]["secretKeyRef"]["key"] == (
        "CROUPIER_NATS_RULES_SETTLEMENT_PASSWORD"
    )
    urls = env["CROUPIER_NATS_URL"]["value"].split(",")
    assert len(urls) == 3 and all(
        u.startswith("tls://rules_settlement:$(NATS_PASSWORD)@") for u in urls
    )
    (keys,) = [v for v in spec["volumes"] if v["name"] == "keys"]
    secrets = {s["secret"]["name"] for s in keys["projected"]["sources"] if "secret" in s}
    assert secrets == {"croupier-key-rules", "croupier-key-settlement"}
    assert {"configMap": {"name": "croupier-keyring"}} in keys["projected"]["sources"]
    # its disruption budget selects its pods
    (pdb,) = _docs(comp / "pdb.yaml")
    labels = base[("Deployment", "settlement")]["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    example = (K8S / "base" / "secrets.example.yaml").read_text(encoding="utf-8")
    assert "CROUPIER_NATS_RULES_SETTLEMENT_PASSWORD:" in example


@pytest.mark.parametrize(
    "overlay", ["base", "overlays/dev", "overlays/prod", "overlays/dev-one-pass"]
)
def test_every_kustomization_renders_with_kubectl(overlay: str) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl not installed: the manifests are checked as files only")
    out = subprocess.run(
        [kubectl, "kustomize", str(K8S / overlay)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    objs = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(out.stdout) if d}
    one_pass = overlay.endswith("one-pass")
    assert (("Deployment", "rules") in objs) is not one_pass
    assert (("PodDisruptionBudget", "settlement") in objs) is one_pass
