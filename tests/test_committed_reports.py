"""The committed H200 site is what `mage site` makes of the committed store, byte for byte."""

import shutil
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results" / "h200"
SITE = RESULTS / "site"


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_committed_site_regenerates_identically(tmp_path):
    assert SITE.is_dir(), "results/h200/site should hold the site of the committed store"
    db = tmp_path / "mage.db"
    shutil.copy(RESULTS / "mage.db", db)  # opening a store may migrate it: never the committed file
    made = subprocess.run([sys.executable, "-m", "mage", "site", "--db", str(db), "--out", str(tmp_path / "site")],
                          capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stderr
    fresh, committed = _files(tmp_path / "site"), _files(SITE)
    regenerate = "regenerate it with `mage site --db results/h200/mage.db --out results/h200/site`"
    assert sorted(fresh) == sorted(committed), f"the committed site has other files than the store gives: {regenerate}"
    differ = [name for name in fresh if fresh[name] != committed[name]]
    assert differ == [], f"{', '.join(differ)}: not what the committed store gives; {regenerate}"
