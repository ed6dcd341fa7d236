"""Readers: COCO JSON, flat box tables (CSV/Parquet) and YOLO label folders (zip).

Every reader ends in :func:`~metrics.detection._boxes.ground_truth_from_arrays` or
:func:`~metrics.detection._boxes.detections_from_arrays`, so a bad file is named by what is
wrong (a negative width, an unknown category, an image id not in the ground truth) in one
``ValueError`` sentence, whichever door it came through.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from metrics.detection._boxes import (
    Detections,
    GroundTruth,
    detections_from_arrays,
    ground_truth_from_arrays,
)

__all__ = [
    "load_detections",
    "load_ground_truth",
    "read_box_table",
    "read_coco_detections",
    "read_coco_ground_truth",
    "read_yolo_labels",
]

_TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")


def _name(source) -> str:
    return Path(source).name if isinstance(source, (str, Path)) else "the data"


def _read_json(source) -> Any:
    if isinstance(source, (str, Path)):
        try:
            with open(source, encoding="utf-8") as fh:
                return json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{_name(source)} is not valid JSON "
                f"(line {exc.lineno}, column {exc.colno}: {exc.msg})."
            ) from None
        except UnicodeDecodeError:
            raise ValueError(
                f"{_name(source)} is not a UTF-8 text file; expected COCO JSON."
            ) from None
    return source


def _field(rows: list, key: str, what: str, default=None, required=True) -> list:
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(
                f"{what}: entry {i} is not an object; expected a JSON object with {key!r}."
            )
        if key in row:
            out.append(row[key])
        elif required:
            raise ValueError(f"{what}: entry {i} has no {key!r}; every entry needs one.")
        else:
            out.append(default)
    return out


def _bboxes(rows: list, what: str) -> np.ndarray:
    boxes = _field(rows, "bbox", what)
    bad = [i for i, b in enumerate(boxes) if not isinstance(b, (list, tuple)) or len(b) != 4]
    if bad:
        raise ValueError(
            f"{what}: entry {bad[0]} has bbox {boxes[bad[0]]!r}; a bbox is [x, y, width, height]."
        )
    return boxes


def read_coco_ground_truth(source) -> GroundTruth:
    """COCO ground truth (a path or the loaded dict): images, annotations, categories."""
    data = _read_json(source)
    what = _name(source)
    if not isinstance(data, dict) or not all(
        isinstance(data.get(k), list) for k in ("images", "annotations", "categories")
    ):
        raise ValueError(
            f"{what} is not COCO ground truth: it needs 'images', 'annotations' and 'categories' "
            "lists (a results file is a plain list of detections)."
        )
    images, anns, cats = data["images"], data["annotations"], data["categories"]
    what_a = f"{what} annotations"
    sizes = None
    widths = _field(images, "width", f"{what} images", required=False)
    heights = _field(images, "height", f"{what} images", required=False)
    if images and all(w is not None for w in widths) and all(h is not None for h in heights):
        sizes = np.column_stack([widths, heights]).astype(np.float64)
    boxes = np.asarray(_bboxes(anns, what_a), dtype=object).reshape(-1, 4)
    try:
        boxes = boxes.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what_a}: a bbox holds something other than numbers.") from None
    area = _field(anns, "area", what_a, required=False)
    area = [b[2] * b[3] if a is None else a for a, b in zip(area, boxes, strict=False)]
    return ground_truth_from_arrays(
        image_ids=np.asarray(_field(images, "id", f"{what} images")),
        box_image_ids=np.asarray(_field(anns, "image_id", what_a)),
        category_ids=np.asarray(_field(cats, "id", f"{what} categories")),
        category_names=_field(cats, "name", f"{what} categories", default="", required=False),
        box_category_ids=np.asarray(_field(anns, "category_id", what_a)),
        boxes=boxes,
        area=area,
        iscrowd=_field(anns, "iscrowd", what_a, default=0, required=False),
        difficult=_field(anns, "difficult", what_a, default=0, required=False),
        ann_id=_field(anns, "id", what_a, default=None, required=False)
        if all("id" in a for a in anns if isinstance(a, dict))
        else None,
        image_sizes=sizes,
        what=what,
    )


def read_coco_detections(source, ground_truth: GroundTruth) -> Detections:
    """COCO results (a list of ``image_id, category_id, bbox, score``), path or loaded."""
    data = _read_json(source)
    what = _name(source)
    if isinstance(data, dict) and isinstance(data.get("annotations"), list):
        data = data["annotations"]
    if not isinstance(data, list):
        raise ValueError(
            f"{what} is not a COCO results file: expected a list of detections with "
            "image_id, category_id, bbox and score."
        )
    boxes = np.asarray(_bboxes(data, what), dtype=object).reshape(-1, 4)
    try:
        boxes = boxes.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: a bbox holds something other than numbers.") from None
    return detections_from_arrays(
        ground_truth,
        box_image_ids=np.asarray(_field(data, "image_id", what)),
        box_category_ids=np.asarray(_field(data, "category_id", what)),
        boxes=boxes,
        scores=_field(data, "score", what),
        what=what,
    )


def _read_table(source):
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return source, "the table"
    name = _name(source)
    suffix = Path(source).suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(source), name
        return pd.read_csv(
            source, sep=None if suffix in (".tsv", ".txt") else ",", engine="python"
        ), name
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ValueError(f"{name} could not be read as a table ({exc}).") from None


def _column(df, names: tuple[str, ...], what: str, required=True):
    lower = {str(c).strip().lower(): c for c in df.columns}
    for n in names:
        if n in lower:
            return df[lower[n]].to_numpy()
    if required:
        raise ValueError(
            f"{what} has no {names[0]!r} column; a box table needs image_id, category, x, y, w, h"
            " (and score for detections)."
        )
    return None


def _categories_of(values: np.ndarray) -> tuple[np.ndarray, list[str], bool]:
    """Category ids and names from a column of ints or names (names get ids 1..K, sorted)."""
    try:
        ids = values.astype(np.int64)
        if np.array_equal(ids, values.astype(np.float64)):
            uniq = np.unique(ids)
            return uniq, [str(u) for u in uniq], False
    except (TypeError, ValueError):
        pass
    names = sorted({str(v) for v in values})
    return np.arange(1, len(names) + 1), names, True


def read_box_table(source, ground_truth: GroundTruth | None = None) -> GroundTruth | Detections:
    """A flat table: ``image_id, category, x, y, w, h[, score]`` (CSV, Parquet or DataFrame).

    Without ``ground_truth`` it is read as ground truth (optional ``iscrowd``, ``area``,
    ``difficult``; a row with an empty box declares an image with no boxes); with it, as
    detections (``score`` required). ``category`` holds ids or names.
    """
    df, what = _read_table(source)
    image = _column(df, ("image_id", "image", "img_id", "file"), what)
    cat = _column(df, ("category", "category_id", "class", "label"), what)
    coords = [_column(df, (c,), what) for c in ("x", "y", "w", "h")]
    try:
        boxes = np.column_stack(coords).astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: x, y, w, h must be numbers.") from None
    if ground_truth is None:
        declared = np.isnan(boxes).all(axis=1)
        image_ids = np.unique(image)
        rows = ~declared
        cat_ids, names, by_name = _categories_of(cat[rows])
        box_cat = cat[rows]
        if by_name:
            box_cat = np.searchsorted(np.asarray(names), box_cat.astype(str)) + 1
        crowd = _column(df, ("iscrowd", "crowd"), what, required=False)
        area = _column(df, ("area",), what, required=False)
        diff = _column(df, ("difficult",), what, required=False)
        return ground_truth_from_arrays(
            image_ids=image_ids,
            box_image_ids=image[rows],
            category_ids=cat_ids,
            category_names=names,
            box_category_ids=box_cat.astype(np.int64),
            boxes=boxes[rows],
            area=None if area is None else area[rows],
            iscrowd=None if crowd is None else crowd[rows],
            difficult=None if diff is None else diff[rows],
            what=what,
        )
    score = _column(df, ("score", "confidence", "conf"), what)
    gt = ground_truth
    names = np.asarray(gt.category_names)
    try:
        box_cat = cat.astype(np.int64)
        if not np.array_equal(box_cat, cat.astype(np.float64)):
            raise ValueError
    except (TypeError, ValueError):
        # Names: map through the ground truth's names.
        by_name = {n: i for n, i in zip(names, gt.category_ids, strict=False)}
        unknown = sorted({str(c) for c in cat} - set(by_name))
        if unknown:
            raise ValueError(
                f"{what}: {len(unknown)} unknown categor{'y' if len(unknown) == 1 else 'ies'} "
                f"({', '.join(repr(u) for u in unknown[:5])}) not in the ground truth; "
                "use its names or ids."
            ) from None
        box_cat = np.array([by_name[str(c)] for c in cat], dtype=np.int64)
    try:
        score = score.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: the score column must hold numbers.") from None
    image_keys = (
        image
        if gt.image_ids.dtype.kind in "iu" or image.dtype.kind not in "iuf"
        else image.astype(str)
    )
    return detections_from_arrays(
        gt, box_image_ids=image_keys, box_category_ids=box_cat, boxes=boxes, scores=score, what=what
    )


_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".gif", ".tif", ".tiff")


def _picture_size(zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str) -> tuple[float, float]:
    """An image's width and height from its header (the pixels are not decoded), turned as its
    EXIF orientation turns it, as YOLO trainers read it (Ultralytics' ``exif_size``)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with zf.open(info) as fh, Image.open(fh) as im:
            w, h = im.size
            if im.getexif().get(0x0112) in (5, 6, 7, 8):  # rotated a quarter turn
                w, h = h, w
    except (UnidentifiedImageError, OSError, ValueError, zipfile.BadZipFile):
        raise ValueError(
            f"{what}: {info.filename} is not an image whose size can be read; remove it or "
            "give the image sizes in a file."
        ) from None
    return float(w), float(h)


def _read_sizes(image_sizes) -> dict[str, tuple[float, float]]:
    if image_sizes is None:
        return {}
    if isinstance(image_sizes, dict):
        return {str(k): (float(v[0]), float(v[1])) for k, v in image_sizes.items()}
    if isinstance(image_sizes, (str, Path)) and Path(image_sizes).suffix.lower() == ".json":
        data = _read_json(image_sizes)
        if not isinstance(data, dict):
            raise ValueError(
                f"{_name(image_sizes)}: image sizes must map each image to [width, height]."
            )
        return _read_sizes(data)
    df, what = _read_table(image_sizes)
    image = _column(df, ("image", "image_id", "file", "name"), what)
    w = _column(df, ("width", "w"), what)
    h = _column(df, ("height", "h"), what)
    return {
        str(PurePosixPath(str(i)).stem): (float(a), float(b))
        for i, a, b in zip(image, w, h, strict=False)
    }


def read_yolo_labels(
    source, *, image_sizes=None, names=None, ground_truth: GroundTruth | None = None
) -> GroundTruth | Detections:
    """A YOLO label folder as a zip of ``.txt`` files (one per image, the image id its stem).

    Lines are ``class cx cy w h`` normalised to the image (detections add a confidence).
    ``image_sizes`` (a CSV ``image, width, height``, a JSON ``{image: [w, h]}`` or a dict)
    turns them into pixels; without it the sizes are read from the headers of the images in
    the zip (``images/x.jpg`` beside ``labels/x.txt``, turned by their EXIF orientation), and
    an image there without a label file is an image with no object; with neither, the boxes
    stay normalised and the COCO area ranges are unavailable. ``names`` (or a ``classes.txt``
    in the zip) names the class indices. With ``ground_truth`` the labels are read as
    detections against it.
    """
    what = _name(source)
    try:
        zf = zipfile.ZipFile(source if not isinstance(source, bytes) else io.BytesIO(source))
    except (zipfile.BadZipFile, OSError):
        raise ValueError(
            f"{what} is not a zip file; zip the YOLO labels/ folder's .txt files."
        ) from None
    stems, rows, pictures = [], [], {}
    class_names = list(names) if names is not None else None
    with zf:
        for info in zf.infolist():
            path = PurePosixPath(info.filename)
            if info.is_dir() or path.name.startswith("."):
                continue
            if path.suffix.lower() in _IMAGE_SUFFIXES:
                pictures.setdefault(path.stem, info)
                continue
            if path.suffix.lower() != ".txt":
                continue
            text = zf.read(info).decode("utf-8", errors="replace")
            if path.name == "classes.txt":
                if class_names is None:
                    class_names = [ln.strip() for ln in text.splitlines() if ln.strip()]
                continue
            stems.append(path.stem)
            for lineno, line in enumerate(text.splitlines(), start=1):
                parts = line.split()
                if not parts:
                    continue
                want = (5,) if ground_truth is None else (6,)
                if len(parts) not in want:
                    kind = "class cx cy w h" + ("" if ground_truth is None else " confidence")
                    raise ValueError(
                        f"{what}: {path.name} line {lineno} has {len(parts)} values; YOLO "
                        f"{'labels' if ground_truth is None else 'detections'} are '{kind}'."
                    )
                try:
                    values = [float(p) for p in parts]
                except ValueError:
                    raise ValueError(
                        f"{what}: {path.name} line {lineno} holds something other than numbers."
                    ) from None
                rows.append((path.stem, *values))
        if not stems:
            raise ValueError(f"{what} holds no .txt label files; zip the YOLO labels/ folder.")
        sizes = _read_sizes(image_sizes)
        if not sizes and pictures:  # the images beside their labels: sizes from their headers
            sizes = {stem: _picture_size(zf, info, what) for stem, info in pictures.items()}
            if ground_truth is None:  # an image without a label file is an image of background
                stems += [stem for stem in pictures if stem not in set(stems)]
    if (
        ground_truth is not None
        and not sizes
        and ground_truth.image_sizes is not None
        and ground_truth.has_areas
    ):
        sizes = {
            str(i): tuple(s)
            for i, s in zip(ground_truth.image_ids, ground_truth.image_sizes, strict=False)
        }
    missing = sorted(set(stems) - set(sizes)) if sizes else []
    if missing:
        raise ValueError(
            f"{what}: no image size for {len(missing)} image{'s' if len(missing) != 1 else ''} "
            f"({', '.join(missing[:5])}); give every image's width and height in the sizes "
            "file, or put every labelled image in the zip beside its labels."
        )
    arr = np.array([r[1:] for r in rows], dtype=np.float64).reshape(
        -1, 5 if ground_truth is None else 6
    )
    img = np.array([r[0] for r in rows], dtype=object).astype(str)
    cls = arr[:, 0]
    if (cls != np.round(cls)).any() or (cls < 0).any():
        raise ValueError(f"{what}: a class index is not a whole number >= 0.")
    cls = cls.astype(np.int64)
    cx, cy, w, h = arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4]
    if sizes:
        wh = np.array([sizes[s] for s in img], dtype=np.float64).reshape(-1, 2)
        W, H = wh[:, 0], wh[:, 1]
    else:
        W = H = np.ones(len(img))
    boxes = np.column_stack([(cx - w / 2) * W, (cy - h / 2) * H, w * W, h * H])
    if ground_truth is not None:
        if ground_truth.has_areas and not sizes:
            raise ValueError(
                f"{what}: the ground truth is in pixels but these YOLO detections are normalised; "
                "give the image sizes."
            )
        return detections_from_arrays(
            ground_truth,
            box_image_ids=img
            if ground_truth.image_ids.dtype.kind not in "iu"
            else img.astype(np.int64),
            box_category_ids=cls,
            boxes=boxes,
            scores=arr[:, 5],
            what=what,
        )
    n_cls = int(cls.max()) + 1 if cls.size else 0
    if class_names is not None:
        if n_cls > len(class_names):
            raise ValueError(
                f"{what}: class index {n_cls - 1} has no name ({len(class_names)} names given); "
                "every class index needs a name."
            )
        n_cls = len(class_names)
    image_ids = np.array(sorted(set(stems)))
    image_size_arr = None
    if sizes:
        image_size_arr = np.array([sizes[s] for s in image_ids], dtype=np.float64)
    return ground_truth_from_arrays(
        image_ids=image_ids,
        box_image_ids=img,
        category_ids=np.arange(n_cls),
        category_names=class_names if class_names is not None else [str(i) for i in range(n_cls)],
        box_category_ids=cls,
        boxes=boxes,
        has_areas=bool(sizes),
        image_sizes=image_size_arr,
        what=what,
    )


def load_ground_truth(source, **kwargs) -> GroundTruth:
    """A :class:`GroundTruth` from any door: itself, a COCO dict, a DataFrame or a path."""
    if isinstance(source, GroundTruth):
        return source
    if isinstance(source, dict):
        return read_coco_ground_truth(source)
    if isinstance(source, (str, Path)):
        suffix = Path(source).suffix.lower()
        if not Path(source).is_file():
            raise ValueError(f"{source} does not exist or is not a file.")
        if suffix == ".json":
            return read_coco_ground_truth(source)
        if suffix == ".zip":
            return read_yolo_labels(source, **kwargs)
        if suffix in _TABLE_SUFFIXES:
            return read_box_table(source)
        raise ValueError(
            f"{Path(source).name}: unknown ground-truth format {suffix!r}; give COCO JSON, a "
            "CSV/Parquet box table or a zip of YOLO labels."
        )
    try:
        import pandas as pd

        if isinstance(source, pd.DataFrame):
            return read_box_table(source)
    except ImportError:  # pragma: no cover
        pass
    raise ValueError(f"ground truth of type {type(source).__name__} is not understood.")


def load_detections(source, ground_truth: GroundTruth, **kwargs) -> Detections:
    """:class:`Detections` against ``ground_truth`` from any door."""
    if isinstance(source, Detections):
        return source
    if isinstance(source, (list, dict)):
        return read_coco_detections(source, ground_truth)
    if isinstance(source, (str, Path)):
        suffix = Path(source).suffix.lower()
        if not Path(source).is_file():
            raise ValueError(f"{source} does not exist or is not a file.")
        if suffix == ".json":
            return read_coco_detections(source, ground_truth)
        if suffix == ".zip":
            return read_yolo_labels(source, ground_truth=ground_truth, **kwargs)
        if suffix in _TABLE_SUFFIXES:
            return read_box_table(source, ground_truth)
        raise ValueError(
            f"{Path(source).name}: unknown detections format {suffix!r}; give COCO results JSON, "
            "a CSV/Parquet box table with a score column or a zip of YOLO detections."
        )
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return read_box_table(source, ground_truth)
    raise ValueError(f"detections of type {type(source).__name__} are not understood.")
