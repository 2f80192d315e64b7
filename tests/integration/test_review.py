"""Human verification (paper A.5): review pages, the corrections CSV, applying it, Table 5 ratios.

The browser round trip (click "exclude", export, rebuild) is in test_review_browser.py.
"""

from __future__ import annotations

import json
import re
import warnings

import pyarrow.parquet as pq
import pytest

from streamgaze_hf.cli import main
from streamgaze_hf.dataset.files import data_file
from streamgaze_hf.gaze.fixations import Fixation
from streamgaze_hf.gaze.scanpath import FixationObjects
from streamgaze_hf.review import (
    CSV_COLUMNS,
    ReviewWarning,
    apply_corrections,
    corrections_to_csv,
    export_review,
    fleiss_kappa,
    format_stats,
    load_corrections,
    parse_corrections,
    verification_stats,
)
from streamgaze_hf.review.page import PageFixation, PageVideo, embed_json, render_video_page
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.once import once_per_run
from ..fixtures.review_csv import GOOD, HEADER


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory):
    """One 30 s demo video built through the raw pipeline."""
    from streamgaze_hf.benchmarks.streamgaze.build import build_dataset
    from streamgaze_hf.demo.world import generate_world

    def build(d):
        generate_world(d / "raw", n_videos=1, seed=0, duration=30.0, progress=False)
        return build_dataset(d / "raw", d / "streamgaze", "0.1.0")

    return once_per_run(tmp_path_factory, "test_review.small_dataset", build)


def _kept(root) -> list[dict]:
    return [r for r in pq.read_table(data_file(root, "fixations")).to_pylist() if r["kept"]]


# ------------------------------------------------------------------------------------------- export


def test_export_writes_self_contained_pages(small_dataset, tmp_path):
    out = tmp_path / "review"
    paths = export_review(small_dataset, out)
    kept = _kept(small_dataset)
    vid = kept[0]["video_id"]
    assert paths == [out / "index.html", out / f"{vid}.html"]
    assert (out / "videos" / f"{vid}.mp4").read_bytes() == (small_dataset / "videos/overlay" / f"{vid}.mp4").read_bytes()
    page = (out / f"{vid}.html").read_text(encoding="utf-8")
    assert f'src="videos/{vid}.mp4"' in page
    assert page.count('<article class="fixation"') == len(kept) > 0
    for k, f in enumerate(kept):
        card = page.split(f'id="fix-{k}"', 1)[1].split("</article>", 1)[0]
        assert f'data-fixation-index="{f["fixation_index"]}"' in card
        if f["gazed_object"]:
            assert f'data-region="gazed" data-object="{f["gazed_object"]}"' in card
        for region in ("fov", "out"):
            for name in f[f"{region}_objects"]:
                assert f'data-region="{region}" data-object="{name}"' in card
    for needle in ('id="csv-output"', 'id="export-csv"', "Exclude whole fixation", "Play this fixation",
                   "Verification guide", "localStorage", 'id="reset-all"'):
        assert needle in page
    # everything but the video is inline: no external script, style sheet or image
    assert not re.search(r"<script[^>]+src=|<link[^>]+stylesheet|<img[^>]+src=\"(?!data:)", page)
    data = json.loads(page.split('id="review-data">', 1)[1].split("</script>", 1)[0])
    assert data["columns"] == list(CSV_COLUMNS) and len(data["fixations"]) == len(kept)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f'href="{vid}.html"' in index

    # --link: no copies, relative links into the dataset that resolve to the overlay video
    linked = tmp_path / "linked"
    assert main(["review", "export", str(small_dataset), "--out", str(linked), "--link"]) == 0
    assert not (linked / "videos").exists()
    src = re.search(r'<video [^>]*src="([^"]+)"', (linked / f"{vid}.html").read_text()).group(1)
    assert (linked / src).resolve() == (small_dataset / "videos/overlay" / f"{vid}.mp4").resolve()


def test_export_unknown_video_is_an_error(small_dataset, tmp_path, capsys):
    assert main(["review", "export", str(small_dataset), "--out", str(tmp_path / "r"), "--video", "nope"]) == 2
    assert "no such video(s) in the dataset: nope" in capsys.readouterr().err


MALICIOUS = ['</script><script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "<!--<script>", "a&b 'q'"]


def test_page_escapes_dataset_strings():
    fx = PageFixation(0, 1.0, 3.0, 0.5, 0.5, 0, MALICIOUS[0], (MALICIOUS[1],), (MALICIOUS[2], MALICIOUS[3]))
    video = PageVideo('v"<1>', "src<x>", "videos/v%22%3C1%3E.mp4", 10.0, [fx])
    html = render_video_page(video, "StreamGaze")
    block = html.split('id="review-data">', 1)[1].split("</script>", 1)[0]
    markup = html.replace(block, "")
    for bad in MALICIOUS[:3]:
        assert bad not in markup  # outside the JSON block every string is HTML-escaped
    assert markup.count("<script") == 2  # the data block and the page's own script
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'data-object="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"' in html
    assert "</" not in block and "<!--" not in block
    data = json.loads(block)
    assert data["video_id"] == 'v"<1>'
    assert [data["fixations"][0][k] for k in ("gazed", "fov", "out")] == [
        MALICIOUS[0], [MALICIOUS[1]], MALICIOUS[2:]]
    assert embed_json("</x><!--") == '"<\\/x>\\u003c!--"'


# ------------------------------------------------------------------------------------------- loading


def _write(tmp_path, text: str, name: str = "r.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("text,row,reason", [
    ("video_id,start,end,region,object,decision\n" + GOOD, 1, "missing column(s) fixation_index"),
    (HEADER + "\n" + GOOD.replace("out,", "outside,"), 2, "region 'outside' is not one of"),
    (HEADER + "\n" + GOOD + "\n" + GOOD.replace("exclude", "Nope"), 3, "decision 'Nope'"),
    (HEADER + "\n" + GOOD.replace("1.0,3.0", "3.0,1.0"), 2, "end 1.0 is before start 3.0"),
    (HEADER + "\n" + GOOD.replace("0,1.0,3.0", ",,"), 2, "the fixation is not identified"),
    (HEADER + "\n" + GOOD.replace("1.0,3.0", "1.0,"), 2, "give both start and end"),
    (HEADER + "\n" + GOOD.replace("1.0", "soon"), 2, "start 'soon' is not a number"),
    (HEADER + "\n" + GOOD.replace("1.0", "nan"), 2, "finite number of seconds"),
    (HEADER + "\n" + GOOD.replace("v1,0,", "v1,1.5,"), 2, "fixation_index '1.5' is not an integer"),
    (HEADER + "\n" + GOOD.replace("knife", ""), 2, "object is empty in a 'out' row"),
    (HEADER + "\n" + GOOD.replace("out,knife", "fixation,knife"), 2, "a 'fixation' row is about the whole"),
    (HEADER + "\n" + GOOD.replace(",,ann", ",,ann,extra"), 2, "more cell(s) than the header"),
    (HEADER + "\n" + GOOD.replace("v1,", ","), 2, "video_id is empty"),
    (HEADER + "\n" + GOOD + "\n\n" + GOOD.replace("exclude", "include"), 4, "already given in row 2"),
    (HEADER + "\n" + "v1,0,1.0,3.0,gazed,,include,,a caption,ann,", 2, "needs the corrected_object"),
    ("", 1, "empty CSV"),
])
def test_load_corrections_names_file_and_row(tmp_path, text, row, reason):
    p = _write(tmp_path, text)
    with pytest.raises(StreamGazeError) as err:
        load_corrections([p])
    msg = str(err.value)
    assert msg.startswith(f"{p}: "), msg
    assert reason in msg, msg
    if text:
        assert f"row {row}:" in msg, msg


def test_load_corrections_files(tmp_path):
    with pytest.raises(StreamGazeError, match="cannot read review CSV"):
        load_corrections(tmp_path / "missing.csv")
    latin = tmp_path / "latin.csv"
    latin.write_bytes((HEADER + "\nv1,0,1,3,out,cr\xe8me,include,,,,\n").encode("latin-1"))
    with pytest.raises(StreamGazeError, match=r"latin\.csv: not UTF-8"):
        load_corrections(latin)
    a = _write(tmp_path, "\ufeff" + HEADER + "\r\n" + GOOD + "\r\n", "a.csv")  # Excel's BOM + CRLF
    b = _write(tmp_path, HEADER.replace(",source", "") + "\nv1,0,1.0,3.0,out,knife,include,,,bob\n", "b.csv")
    c = load_corrections([a, b])
    assert len(c) == 2 and c.annotators == ["ann", "bob"] and c.video_ids == ["v1"]
    assert c.rows[0].source == "egtea" and c.rows[1].source == "" and c.rows[1].where == f"{b} row 2"
    # the same annotator twice (an old and a new export) is refused
    with pytest.raises(StreamGazeError, match=r"a2\.csv: row 2: annotator 'ann' already decided"):
        load_corrections([a, _write(tmp_path, HEADER + "\n" + GOOD + "\n", "a2.csv")])
    # no annotator name: each file counts as its own annotator
    anon = [_write(tmp_path, HEADER + "\n" + GOOD.replace(",ann,", ",,") + "\n", f"x{i}.csv") for i in range(2)]
    assert len(load_corrections(anon).annotators) == 2
    # the writer's output reads back to the same rows
    again = parse_corrections(corrections_to_csv(c.rows), "again.csv")
    assert [(r.video_id, r.start, r.object, r.decision, r.annotator) for r in again] == \
        [(r.video_id, r.start, r.object, r.decision, r.annotator) for r in c.rows]


# ------------------------------------------------------------------------------------------- applying


FIXES = [Fixation(1.0, 3.0, 0.2, 0.2, 60), Fixation(4.0, 6.0, 0.5, 0.5, 60), Fixation(7.0, 9.0, 0.8, 0.8, 60)]
OBJECTS = [FixationObjects("mug", ("plate", "cup"), ("knife", "fork")),
           FixationObjects("pan", (), ("lid",)),
           FixationObjects(None, ("towel",), ("bowl",))]


def _corr(*lines: str):
    return parse_corrections(HEADER + "\n" + "\n".join(lines) + "\n", "t.csv")


def _c(*lines: str):
    from streamgaze_hf.review import Corrections

    return Corrections(_corr(*lines), ["t.csv"])


def test_apply_removes_excluded_and_renames_gazed():
    c = _c("v1,0,1.0,3.0,out,knife,exclude,,,a,",
           "v1,0,1.0,3.0,fov,plate,include,,,a,",
           "v1,0,1.0,3.0,gazed,mug,exclude,cup,A white cup on the left.,a,",  # cup was also listed in the FOV
           "v1,1,4.03,5.96,fixation,,exclude,,,a,",  # within 0.05 s
           "v1,9,7.0,9.0,gazed,,include,spoon,,a,",  # a missing gazed object, added (times win over index)
           "v2,0,1.0,3.0,out,fork,exclude,,,a,")  # another video: ignored
    got = apply_corrections("v1", FIXES, OBJECTS, c)
    assert got == [FixationObjects("cup", ("plate",), ("fork",)), FixationObjects(),
                   FixationObjects("spoon", ("towel",), ("bowl",))]
    assert OBJECTS[0].out == ("knife", "fork")  # inputs untouched


def test_apply_gazed_excluded_without_correction_and_index_matching():
    c = _c("v1,12,,,gazed,pan,exclude,,,a,", "v1,13,,,out,bowl,exclude,,,a,")
    got = apply_corrections("v1", FIXES, OBJECTS, c, fixation_indices=[10, 12, 13])
    assert got == [OBJECTS[0], FixationObjects(None, (), ("lid",)), FixationObjects(None, ("towel",), ())]


def test_apply_warns_about_rows_that_match_nothing():
    c = _c("v1,0,1.06,3.0,out,knife,exclude,,,a,",  # 0.06 s off: no fixation
           "v1,0,1.0,3.0,out,spoon,exclude,,,a,")  # no such object
    with pytest.warns(ReviewWarning, match="2 review row"):
        got = apply_corrections("v1", FIXES, OBJECTS, c)
    assert got == OBJECTS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert apply_corrections("v9", FIXES, OBJECTS, c) == OBJECTS
    with pytest.raises(ValueError):
        apply_corrections("v1", FIXES[:2], OBJECTS, c)


def test_apply_majority_vote_ties_go_against_the_original():
    rows = []
    for who, mug, knife, fork, fix2 in [("a", ("include", ""), "exclude", "include", "exclude"),
                                        ("b", ("include", "cup"), "exclude", "exclude", "include")]:
        rows += [f"v1,0,1.0,3.0,gazed,mug,{mug[0]},{mug[1]},,{who},",
                 f"v1,0,1.0,3.0,out,knife,{knife},,,{who},", f"v1,0,1.0,3.0,out,fork,{fork},,,{who},",
                 f"v1,1,4.0,6.0,fixation,,{fix2},,,{who},"]
    got = apply_corrections("v1", FIXES, OBJECTS, _c(*rows))
    assert got[0] == FixationObjects("cup", ("plate",), ()) and got[1] == FixationObjects()
    # a third annotator breaks the ties: keeps mug and fork, keeps fixation 2
    rows += ["v1,0,1.0,3.0,gazed,mug,include,,,c,", "v1,0,1.0,3.0,out,fork,include,,,c,",
             "v1,1,4.0,6.0,fixation,,include,,,c,"]
    got = apply_corrections("v1", FIXES, OBJECTS, _c(*rows))
    assert got[0] == FixationObjects("mug", ("plate", "cup"), ("fork",)) and got[1] == OBJECTS[1]


# ------------------------------------------------------------------------------------------- stats


STATS_CSV = [
    # annotator a, video v1 (egtea)
    "v1,0,1.0,3.0,fixation,,include,,,a,egtea", "v1,0,1.0,3.0,gazed,mug,include,,,a,egtea",
    "v1,0,1.0,3.0,fov,plate,include,,,a,egtea", "v1,0,1.0,3.0,out,knife,exclude,,,a,egtea",
    "v1,0,1.0,3.0,out,fork,include,,,a,egtea",
    "v1,1,4.0,6.0,fixation,,exclude,,,a,egtea", "v1,1,4.0,6.0,gazed,pan,include,,,a,egtea",
    "v1,1,4.0,6.0,out,lid,include,,,a,egtea",
    # annotator b, video v1
    "v1,0,1.0,3.0,fixation,,include,,,b,egtea", "v1,0,1.0,3.0,gazed,mug,include,cup,A white cup.,b,egtea",
    "v1,0,1.0,3.0,fov,plate,include,,,b,egtea", "v1,0,1.0,3.0,out,knife,exclude,,,b,egtea",
    "v1,0,1.0,3.0,out,fork,exclude,,,b,egtea",
    "v1,1,4.0,6.0,fixation,,include,,,b,egtea", "v1,1,4.0,6.0,gazed,pan,include,,,b,egtea",
    "v1,1,4.0,6.0,out,lid,exclude,,,b,egtea",
    # annotator a, video v2 (holoassist): a missing gazed object added
    "v2,0,2.0,5.0,gazed,,include,bowl,,a,holoassist", "v2,0,2.0,5.0,out,towel,include,,,a,holoassist",
]


def test_verification_stats_on_a_hand_made_csv(tmp_path):
    p = _write(tmp_path, HEADER + "\n" + "\n".join(STATS_CSV) + "\n")
    s = verification_stats(load_corrections(p))
    o = s["overall"]
    assert (o["objects"], o["included"], o["excluded"], o["modified"], o["renamed"], o["captioned"], o["added"]) == \
        (13, 7, 6, 1, 1, 1, 1)
    assert (o["fixations"], o["fixations_excluded"], o["videos"], o["annotators"]) == (5, 1, 2, 2)
    assert o["inclusion_ratio"] == pytest.approx(7 / 13) and o["modified_ratio"] == pytest.approx(1 / 13)
    eg, ho = s["by_source"]["egtea"], s["by_source"]["holoassist"]
    assert (eg["objects"], eg["included"], eg["inclusion_ratio"], eg["modified_ratio"]) == (12, 6, 0.5, 1 / 12)
    assert (ho["objects"], ho["inclusion_ratio"], ho["modified_ratio"], ho["added"]) == (1, 1.0, 0.0, 1)
    assert s["by_video"]["v1"]["objects"] == 12 and s["by_annotator"]["b"]["included"] == 3
    assert s["by_region"]["out"]["objects"] == 7 and s["by_region"]["out"]["included"] == 2
    # 6 objects rated twice: 4 agreements, 2 disagreements, include/exclude 6/6 -> (2/3 - 1/2) / (1/2)
    assert s["agreement"] == {"fleiss_kappa": pytest.approx(1 / 3), "objects_with_2plus_raters": 6}
    text = format_stats(s)
    assert re.search(r"egtea\s+1\s+4\s+12\s+50\.00\s+8\.33", text), text
    assert re.search(r"overall\s+2\s+5\s+13\s+53\.85\s+7\.69", text), text
    assert "Fleiss' kappa (include/exclude, 6 objects with 2+ annotators): 0.33" in text
    # without a source column, sources come from the dataset mapping
    plain = [",".join(line.split(",")[:-1]) + "," for line in STATS_CSV]
    s2 = verification_stats(_c(*plain), {"v1": "EGTEA-Gaze"})
    assert set(s2["by_source"]) == {"EGTEA-Gaze", "unknown"}


def test_fleiss_kappa_reference_example():
    # Fleiss (1971) / Wikipedia's worked example: 10 items, 14 raters, 5 categories -> 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    ratings = [{str(j): n for j, n in enumerate(row) if n} for row in table]
    assert fleiss_kappa(ratings) == pytest.approx(0.20993, abs=1e-4)
    assert fleiss_kappa([{"include": 2}, {"include": 3}]) is None  # no chance correction possible
    assert fleiss_kappa([{"include": 1}]) is None


def test_cli_import(tmp_path, capsys, small_dataset):
    p = _write(tmp_path, HEADER + "\n" + "\n".join(STATS_CSV[:8]) + "\n")
    out = tmp_path / "stats.json"
    assert main(["review", "import", str(p), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Inclusion Ratio (%)" in printed and "Modified Ratio (%)" in printed
    assert json.loads(out.read_text())["overall"]["objects"] == 6
    bad = _write(tmp_path, HEADER + "\n" + GOOD + "\nv1,0,1,3,fov,plate,maybe,,,a,\n", "bad.csv")
    assert main(["review", "import", str(p), str(bad)]) == 2
    assert f"{bad}: row 3: decision 'maybe'" in capsys.readouterr().err
    # --dataset: sources from the dataset, unknown videos refused
    assert main(["review", "import", str(p), "--dataset", str(small_dataset)]) == 2
    assert "not in the dataset: v1" in capsys.readouterr().err
