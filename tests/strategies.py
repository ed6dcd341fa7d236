"""Hypothesis strategies that draw the shapes users make, on purpose.

A fast path checked only on the shapes its author picked hides the bug that one shape shows: the
fast bootstrap was wrong exactly when positives equalled negatives. These strategies put the
risky shapes in front: equal class counts, one or two rows of a class, class sizes around the
blocked prefix sum's 32-column runs and powers of two, every score tied, zero and fractional
weights, several models, groups of one row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st


def examples(n: int, profile: settings | None = None) -> int:
    """A test's own ``max_examples``, scaled as the loaded profile (or ``profile``) scales
    Hypothesis' default of 100: the same under the default and ``ci`` profiles, a quarter under
    ``fast`` (``make test-fast``, the edit-run loop; ``make test`` and CI draw them all). Fewer
    than 5 stay as they are."""
    base = (profile or settings.default).max_examples
    return max(min(n, 5), round(n * base / 100))


# Class sizes where something changes: one and two rows, the 32-column runs of the blocked
# prefix sums (31, 32, 33, 63, 64, 65) and powers of two plus or minus one.
EDGE_SIZES = (1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129)


@dataclass(frozen=True)
class Binary:
    """A generated binary score table: labels, 1-5 models, optional weights and groups."""

    y: np.ndarray  # bool
    scores: tuple[np.ndarray, ...]
    weights: np.ndarray | None
    groups: np.ndarray | None

    def __repr__(self) -> str:  # hypothesis prints this on failure: keep it readable
        return (
            f"Binary(n_pos={int(self.y.sum())}, n_neg={int((~self.y).sum())}, "
            f"models={len(self.scores)}, weights={self.weights is not None}, "
            f"groups={None if self.groups is None else np.unique(self.groups).size}, "
            f"y={self.y.astype(int).tolist()}, "
            f"scores={[s.tolist() for s in self.scores]}, "
            f"weights={None if self.weights is None else self.weights.tolist()}, "
            f"groups={None if self.groups is None else self.groups.tolist()})"
        )


@st.composite
def class_counts(draw, max_size: int = 129) -> tuple[int, int]:
    """(positives, negatives), half the time equal, often at an edge size."""
    sizes = [s for s in EDGE_SIZES if s <= max_size]
    size = st.one_of(st.sampled_from(sizes), st.integers(1, max_size))
    n_pos = draw(size)
    n_neg = n_pos if draw(st.booleans()) else draw(size)
    return n_pos, n_neg


@st.composite
def score_column(draw, n: int, rng: np.random.Generator, y: np.ndarray) -> np.ndarray:
    """Scores of one model: continuous, heavily tied, all tied, or a perfect/inverted ranking."""
    kind = draw(st.sampled_from(["continuous", "rounded", "coarse", "all_tied", "separating"]))
    if kind == "all_tied":
        return np.full(n, 0.5)
    s = rng.normal(size=n) + draw(st.floats(-1.0, 2.0)) * y
    if kind == "rounded":
        return np.round(s, 1)
    if kind == "coarse":
        return np.round(s)
    if kind == "separating":
        return y + 0.01 * rng.random(n) * draw(st.sampled_from([1.0, -1.0]))
    return s


@st.composite
def binary_tables(
    draw,
    *,
    max_size: int = 129,
    max_models: int = 5,
    weights: bool = False,
    groups: bool = False,
) -> Binary:
    """A binary table in the shapes above, rows shuffled."""
    n_pos, n_neg = draw(class_counts(max_size))
    n = n_pos + n_neg
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)][rng.permutation(n)]
    m = draw(st.integers(1, max_models))
    scores = tuple(draw(score_column(n, rng, y)) for _ in range(m))
    w = None
    if weights and draw(st.booleans()):
        kind = draw(st.sampled_from(["fractional", "with_zeros", "integers"]))
        if kind == "integers":
            w = rng.integers(1, 4, n).astype(float)
        else:
            w = rng.random(n) * 3
            if kind == "with_zeros":
                w[rng.random(n) < 0.3] = 0.0
                # keep one nonzero row of each class so the metric stays defined
                w[np.flatnonzero(y)[0]] = 1.0
                w[np.flatnonzero(~y)[0]] = 1.0
    g = None
    if groups:
        kind = draw(st.sampled_from(["singletons", "few", "many"]))
        if kind == "singletons":
            g = np.arange(n)
        else:
            k = 2 if kind == "few" else max(2, n // 3)
            g = rng.integers(0, k, n)
    return Binary(y, scores, w, g)


# --- Parquet files of every type a file can declare (issue 50) ---------------------------------

PARQUET_KINDS = (
    "int8", "uint16", "int32", "uint64", "int64", "float16", "float32", "float64", "bool",
    "date32", "date64", "timestamp", "time32", "time64", "duration", "decimal128",
    "decimal256", "null", "string", "large_string", "string_view", "binary", "large_binary",
    "binary_view", "fixed_size_binary", "dict_string", "dict_large_string", "dict_binary",
    "dict_int32", "dict_float64", "dict_fixed_size_binary", "dict_date32", "list_int",
    "large_list_string", "fixed_size_list", "struct_dict", "map", "list_dict",
)  # fmt: skip
# The kinds whose few bytes on disk can decode to gigabytes, and dates (Python objects in pandas).
PARQUET_BOMB_KINDS = ("string", "large_string", "string_view", "binary", "large_binary",
                      "binary_view", "dict_string", "dict_large_string", "dict_binary",
                      "date32", "decimal128", "int8")  # fmt: skip
# Encodings a column of each Parquet physical type can be written with (besides the dictionary).
_ENCODINGS = {
    "BYTE_ARRAY": ("PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"),
    "INT32": ("PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"),
    "INT64": ("PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"),
    "FLOAT": ("PLAIN", "BYTE_STREAM_SPLIT"),
    "DOUBLE": ("PLAIN", "BYTE_STREAM_SPLIT"),
    "BOOLEAN": ("PLAIN", "RLE"),
    "FIXED_LEN_BYTE_ARRAY": ("PLAIN", "BYTE_STREAM_SPLIT"),
}
COMPRESSIONS = ("NONE", "SNAPPY", "GZIP", "ZSTD", "BROTLI", "LZ4")


def _parquet_column(kind: str, rows: int, distinct: int, length: int, text: str, nulls: bool):
    """A column of ``kind``: ``distinct`` values repeated over ``rows`` rows, text values
    ``length`` characters of ``text`` long (a few distinct long values repeated: a bomb)."""
    import datetime
    import decimal

    import pyarrow as pa

    index = np.arange(rows) % max(distinct, 1)
    mask = np.arange(rows) % 5 == 3 if nulls else None
    words = [f"{i}" + text * length for i in range(max(distinct, 1))]

    def take(values, type_=None):
        base = {"string_view": pa.string(), "binary_view": pa.binary()}.get(str(type_), type_)
        return pa.array(values, base).take(pa.array(index)).cast(type_ or base)

    def dictionary(values, type_=None):
        return pa.DictionaryArray.from_arrays(pa.array(index.astype(np.int32), mask=mask),
                                              pa.array(values, type_))  # fmt: skip

    numbers = {"int8": pa.int8(), "uint16": pa.uint16(), "int32": pa.int32(),
               "uint64": pa.uint64(), "int64": pa.int64(), "float32": pa.float32(),
               "float64": pa.float64(), "time32": pa.time32("s"), "time64": pa.time64("us"),
               "duration": pa.duration("ms"), "timestamp": pa.timestamp("ms", tz="UTC")}  # fmt: skip
    if kind in numbers:
        type_ = numbers[kind]
        via = pa.int32() if kind == "time32" else pa.int64()  # the storage cast allows
        return pa.array(index % 100, via, mask=mask).view(type_) if kind.startswith("time") \
            else pa.array(index % 100, via, mask=mask).cast(type_)  # fmt: skip
    if kind == "float16":
        return pa.array((index % 100).astype(np.float16), mask=mask)
    if kind == "bool":
        return pa.array(index % 2 == 1, mask=mask)
    if kind in ("date32", "date64"):
        day = datetime.date(2020, 1, 1)
        return take(
            [day + datetime.timedelta(i) for i in range(max(distinct, 1))], getattr(pa, kind)()
        )
    if kind in ("decimal128", "decimal256"):
        type_ = pa.decimal128(12, 2) if kind == "decimal128" else pa.decimal256(40, 2)
        return take([decimal.Decimal(i) / 4 for i in range(max(distinct, 1))], type_)
    if kind == "null":
        return pa.nulls(rows)
    if kind in ("string", "large_string", "string_view"):
        return take(words, getattr(pa, kind)())
    if kind in ("binary", "large_binary", "binary_view"):
        return take([w.encode() for w in words], getattr(pa, kind)())
    if kind == "fixed_size_binary":
        return take([(w.encode() + b" " * 8)[:8] for w in words], pa.binary(8))
    if kind in ("dict_string", "dict_large_string", "dict_binary"):
        type_ = {"dict_string": pa.string(), "dict_large_string": pa.large_string(),
                 "dict_binary": pa.binary()}[kind]  # fmt: skip
        values = [w.encode() for w in words] if kind == "dict_binary" else words
        return dictionary(values, type_)
    if kind == "dict_int32":
        return dictionary(list(range(max(distinct, 1))), pa.int32())
    if kind == "dict_float64":
        return dictionary([i / 2 for i in range(max(distinct, 1))], pa.float64())
    if kind == "dict_fixed_size_binary":
        return dictionary([(w.encode() + b" " * 4)[:4] for w in words], pa.binary(4))
    if kind == "dict_date32":
        return dictionary([datetime.date(2020, 1, 1 + i % 28) for i in range(max(distinct, 1))])
    if kind == "list_int":
        return pa.array([[j] * (j % 4) for j in index.tolist()], pa.list_(pa.int32()))
    if kind == "large_list_string":
        return pa.array([[words[j]] * (j % 3) for j in index.tolist()],
                        pa.large_list(pa.string()))  # fmt: skip
    if kind == "fixed_size_list":
        return pa.array([[j, j] for j in index.tolist()], pa.list_(pa.int16(), 2))
    if kind == "struct_dict":
        return pa.StructArray.from_arrays([pa.array(index % 7), dictionary(words)], ["n", "note"])
    if kind == "map":
        return pa.array([[(words[j], j)] for j in index.tolist()], pa.map_(pa.string(), pa.int64()))
    if kind == "list_dict":
        offsets = pa.array(np.arange(rows + 1, dtype=np.int32))
        return pa.ListArray.from_arrays(offsets, dictionary(words))
    raise ValueError(kind)


@dataclass(frozen=True)
class ParquetCase:
    """A generated Parquet file and how it was written (for the failure report)."""

    data: bytes = field(repr=False)
    kind: str = ""
    rows: int = 0
    options: dict = field(default_factory=dict)


@st.composite
def parquet_files(
    draw, kinds=PARQUET_KINDS, rows=(1, 2, 63, 64, 65, 1_000, 5_000), lengths=(0, 1, 100, 3_000)
) -> ParquetCase:
    """A score table (a label and a score) and one more column of a drawn Arrow type, written
    with drawn encodings (dictionary on or off, PLAIN, RLE, DELTA_*, BYTE_STREAM_SPLIT),
    compression, row-group size, page size and page version, with or without the Arrow schema
    in the file. Values are a few distinct ones repeated, from empty to 3,000 characters of
    ASCII, Latin-1, CJK or emoji: small files, and files a thousand times larger decoded."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    kind = draw(st.sampled_from(kinds))
    rows = draw(st.sampled_from(rows))
    distinct = draw(st.sampled_from((1, 2, 64)))
    length = draw(st.sampled_from(lengths))
    text = draw(st.sampled_from(("x", "é", "漢", "😀")))
    column = _parquet_column(kind, rows, distinct, length, text, draw(st.booleans()))
    table = pa.table({
        "label": pa.array((np.arange(rows) % 2).astype(np.int8)),
        "score": pa.array((np.arange(rows) % 4 / 4).astype(np.float32)),
        "extra": column,
    })  # fmt: skip
    options = {
        "compression": draw(st.sampled_from(COMPRESSIONS)),
        "row_group_size": max(draw(st.sampled_from((1, 7, 64, 1_000, 100_000))), rows // 64, 1),
        "data_page_size": draw(st.sampled_from((None, 512))),
        "data_page_version": draw(st.sampled_from(("1.0", "2.0"))),
        "store_schema": draw(st.booleans()),
        "use_dictionary": draw(st.booleans()),
    }
    physical = None
    buf = io.BytesIO()
    pq.write_table(table.slice(0, 1), buf)
    leaves = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata.schema
    extra = [
        leaves.column(i) for i in range(len(leaves)) if leaves.column(i).path.startswith("extra")
    ]
    if len(extra) == 1 and extra[0].path == "extra":
        physical = extra[0].physical_type
    if physical in _ENCODINGS and not options["use_dictionary"] and draw(st.booleans()):
        options["column_encoding"] = {"extra": draw(st.sampled_from(_ENCODINGS[physical]))}
    buf = io.BytesIO()
    try:
        pq.write_table(table, buf, **options)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # an encoding this type has not
        options.pop("column_encoding", None)
        buf = io.BytesIO()
        pq.write_table(table, buf, **options)
    return ParquetCase(buf.getvalue(), kind, rows, options)
# --- Object detection (issue 53): COCO-style ground truth and results, drawn where the
# conventions part: crowd regions, every area range (sides around 32 and 96 pixels), tied
# scores, more than 100 detections on an image, a category with no ground truth, image ids out
# of order. ---

_SIDES = (3.0, 20.0, 31.0, 33.0, 60.0, 95.0, 97.0, 150.0)


@st.composite
def detection_datasets(draw, max_images: int = 5, max_categories: int = 3, burst: bool = True):
    """(ground-truth dict, results list) in COCO's layout."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_img = draw(st.integers(1, max_images))
    n_cat = draw(st.integers(1, max_categories))
    crowd_rate = draw(st.sampled_from((0.0, 0.15, 0.5)))
    tied = draw(st.sampled_from(("continuous", "coarse", "all")))
    area_mode = draw(st.sampled_from(("box", "shrunk")))
    # "grid": integer boxes on a 5-pixel grid, so IoUs land exactly on thresholds (0.5, 0.75)
    # and duplicated annotations tie a detection between two ground truths.
    grid = draw(st.booleans())
    ids = rng.permutation(np.arange(1, n_img + 1) * 7)
    images = [{"id": int(i), "width": 640, "height": 480} for i in ids]
    # one more category than the boxes use: a category with no ground truth
    cats = [{"id": int(c), "name": f"class {c}"} for c in range(1, n_cat + 2)]
    anns: list[dict] = []
    dets: list[dict] = []

    def score():
        if tied == "all":
            return 0.5
        if tied == "coarse":
            return float(rng.integers(0, 4)) / 4
        return float(rng.random())

    for im in images:
        for _ in range(int(rng.integers(0, 5))):
            c = int(rng.integers(1, n_cat + 1))
            w, h = (rng.choice(_SIDES, 2) * rng.uniform(0.9, 1.1, 2)).tolist()
            x, y = rng.uniform(0, 300, 2).tolist()
            if grid:
                w, h = (float(v) for v in rng.choice((10, 20, 40, 100), 2))
                x, y = (float(v) for v in rng.integers(0, 60, 2) * 5)
            area = w * h if area_mode == "box" else w * h * float(rng.uniform(0.4, 1.0))
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": c,
                    "bbox": [x, y, w, h],
                    "area": area,
                    "iscrowd": int(rng.random() < crowd_rate),
                }
            )
            if grid and rng.random() < 0.3:
                anns.append({**anns[-1], "id": len(anns) + 1})  # a duplicated annotation
            for _ in range(int(rng.integers(0, 4))):
                noise = rng.normal(0, 0.12, 4) * np.array([w, h, w, h])
                if grid:
                    noise = rng.integers(-1, 2, 4) * np.array([w, h, w, h]) / 4
                b = np.array([x, y, w, h]) + noise
                b[2:] = np.abs(b[2:])
                dets.append(
                    {"image_id": im["id"], "category_id": c, "bbox": b.tolist(), "score": score()}
                )
        for _ in range(int(rng.integers(0, 3))):
            c = int(rng.integers(1, n_cat + 2))
            b = rng.uniform(1, 200, 4).tolist()
            dets.append({"image_id": im["id"], "category_id": c, "bbox": b, "score": score()})
    if burst and draw(st.booleans()) and anns:
        # more than 100 detections of one image and category, around one box
        a = anns[int(rng.integers(0, len(anns)))]
        base = np.array(a["bbox"])
        for _ in range(int(rng.integers(101, 130))):
            b = base + rng.normal(0, 0.1, 4) * base[[2, 3, 2, 3]]
            b[2:] = np.abs(b[2:])
            dets.append(
                {
                    "image_id": a["image_id"],
                    "category_id": a["category_id"],
                    "bbox": b.tolist(),
                    "score": score(),
                }
            )
    if not dets:
        im = images[0]
        dets.append(
            {"image_id": im["id"], "category_id": 1, "bbox": [1.0, 1.0, 5.0, 5.0], "score": 0.3}
        )
    order = rng.permutation(len(dets))
    return {"images": images, "annotations": anns, "categories": cats}, [dets[i] for i in order]


@st.composite
def per_query_values(draw, max_runs: int = 5, max_queries: int = 40) -> np.ndarray:
    """Per-query values of several runs on one measure (queries x runs), as trec_eval gives
    them: in [0, 1], mostly on a coarse grid so queries tie within and across runs, with the
    shapes that break a pooled variance on purpose: two queries, a run equal to another, a run
    that is another plus a constant (no residual left once queries are blocks), every value
    tied, a column of zeros (queries without a relevant document)."""
    k = draw(st.integers(2, max_runs))
    n = draw(st.sampled_from((2, 3, 5, 17, max_queries)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    grid = draw(st.sampled_from((2, 5, 100)))
    y = np.round(rng.beta(0.6, 1.5, size=(n, k)) * grid) / grid
    shape = draw(st.sampled_from(("plain", "copy", "shift", "tied", "zeros", "plain")))
    if shape == "copy":
        y[:, 1] = y[:, 0]
    elif shape == "shift":
        y = np.repeat(y[:, :1], k, axis=1) + np.arange(k) * 0.125
    elif shape == "tied":
        y[:] = 0.5
    elif shape == "zeros":
        y[:, -1] = 0.0
    return y
