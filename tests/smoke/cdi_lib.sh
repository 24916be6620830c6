# Sourced after lib.sh by the CDI smoke tests: checks podwired's CDI spec
# files against the CDI JSON schema Debian ships with the reference
# library (golang-github-container-orchestrated-devices-container-device-
# interface-dev), with python3-jsonschema, and against the rules the
# schema does not hold (names, the minimum version podman 4.3 reads).

CDI_SCHEMA_DIR=${CDI_SCHEMA_DIR:-/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema}
[ -f "$CDI_SCHEMA_DIR/schema.json" ] ||
	skip "no CDI schema in $CDI_SCHEMA_DIR (apt-get install golang-github-container-orchestrated-devices-container-device-interface-dev)"
/usr/bin/python3 -c "import jsonschema" 2>/dev/null || skip "python3-jsonschema is not installed (apt-get install python3-jsonschema)"

# cdi_validate FILE...: every FILE is a schema-valid CDI spec that CDI
# 0.5 (podman 4.3) loads: a version it knows, names it accepts, no
# member it does not know, every device with edits. Prints the reason and
# fails otherwise.
cdi_validate() {
	/usr/bin/python3 -W ignore::DeprecationWarning - "$CDI_SCHEMA_DIR" "$@" <<-'EOF2' || fail "CDI spec not valid (above)"
		import json, pathlib, re, sys
		import jsonschema
		d = pathlib.Path(sys.argv[1])
		schema = json.loads((d / "schema.json").read_text())
		resolver = jsonschema.RefResolver(base_uri=d.as_uri() + "/", referrer=schema)
		name_re = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$")
		class_re = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*[A-Za-z0-9]$")
		known = {"cdiVersion", "kind", "devices", "containerEdits"}
		edits = {"env", "deviceNodes", "mounts", "hooks"}
		for f in sys.argv[2:]:
		    try:
		        doc = json.loads(pathlib.Path(f).read_text())
		        jsonschema.validate(doc, schema, resolver=resolver)
		        assert set(doc) <= known, f"unknown members {set(doc) - known}"
		        assert doc["cdiVersion"] in ("0.3.0", "0.4.0", "0.5.0"), \
		            f"cdiVersion {doc['cdiVersion']} is not one CDI 0.5 (podman 4.3) reads"
		        vendor, cls = doc["kind"].split("/")
		        assert class_re.match(cls), f"class {cls}"
		        assert doc["devices"], "no device"
		        names = [dev["name"] for dev in doc["devices"]]
		        assert len(names) == len(set(names)), "a device name twice"
		        for dev in doc["devices"]:
		            assert name_re.match(dev["name"]), f"device name {dev['name']}"
		            e = dev["containerEdits"]
		            assert set(e) <= edits and any(e.values()), f"edits of {dev['name']}"
		            for v in e.get("env", []):
		                assert "=" in v and not v.startswith("="), f"env {v}"
		            uses = set()
		            if any("type" in m for m in e.get("mounts", [])): uses.add("0.4.0")
		            if any("hostPath" in n for n in e.get("deviceNodes", [])) or \
		                    dev["name"][0].isdigit(): uses.add("0.5.0")
		            for u in uses:
		                assert doc["cdiVersion"] >= u, f"{dev['name']} needs {u}"
		    except Exception as ex:
		        print(f"{f}: {type(ex).__name__}: {ex}")
		        sys.exit(1)
		    print(f"{f}: valid ({doc['cdiVersion']}, {len(doc['devices'])} devices)")
	EOF2
}

# cdi_devices DIR KIND: the device names of podwire.io/KIND in DIR.
cdi_devices() {
	[ -f "$1/podwire.io-$2.json" ] || return 0
	jq -r '.devices[].name' "$1/podwire.io-$2.json" | sort | tr '\n' ' ' | sed 's/ $//'
}
