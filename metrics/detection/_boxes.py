"""Boxes as plain arrays: the ground truth and the detections every convention reads.

A :class:`GroundTruth` owns the image list and the category list; :class:`Detections` are
always read against one, so an image id or a category the ground truth does not know is an
error at reading time, named by what is wrong, never a surprise inside the matching.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Detections", "GroundTruth", "detections_from_arrays", "ground_truth_from_arrays"]

_MAX_LISTED = 5


@dataclass(frozen=True)
class GroundTruth:
    """Ground-truth boxes of a set of images.

    Attributes
    ----------
    image_ids : ndarray of shape (n_images,)
        The images' ids (ints for COCO, file stems for YOLO folders), sorted as pycocotools sorts
        ``imgIds``; ``image`` indexes into it.
    category_ids : ndarray of shape (n_categories,)
        Sorted category ids; ``category`` indexes into it.
    category_names : tuple of str
    image, category : ndarray of shape (n_boxes,) int64
    boxes : ndarray of shape (n_boxes, 4) float64
        ``x, y, w, h`` (COCO's ``bbox``), top-left corner and size.
    area : ndarray of shape (n_boxes,) float64
        COCO's ``area`` (the annotation's, else ``w * h``); the area ranges read it.
    iscrowd, difficult : ndarray of shape (n_boxes,) bool
    ann_id : ndarray of shape (n_boxes,) int64
        Annotation ids; boxes are kept in file order, which is pycocotools' tie order.
    has_areas : bool
        False when boxes are in normalised units (YOLO labels without image sizes): the COCO
        area ranges (small < 32², medium < 96², large) are then unavailable.
    image_sizes : ndarray of shape (n_images, 2) or None
        Width and height, where known.
    """

    image_ids: np.ndarray
    category_ids: np.ndarray
    category_names: tuple[str, ...]
    image: np.ndarray
    category: np.ndarray
    boxes: np.ndarray
    area: np.ndarray
    iscrowd: np.ndarray
    difficult: np.ndarray
    ann_id: np.ndarray
    has_areas: bool = True
    image_sizes: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_images(self) -> int:
        return int(self.image_ids.size)

    @property
    def n_categories(self) -> int:
        return int(self.category_ids.size)

    def __len__(self) -> int:
        return int(self.image.size)


@dataclass(frozen=True)
class Detections:
    """Detected boxes with scores, indexed against a :class:`GroundTruth`'s images and
    categories. Rows stay in file order, the order pycocotools breaks score ties by."""

    image: np.ndarray
    category: np.ndarray
    boxes: np.ndarray
    score: np.ndarray

    @property
    def area(self) -> np.ndarray:
        # pycocotools' loadRes: a result's area is its box's w * h.
        return self.boxes[:, 2] * self.boxes[:, 3]

    def __len__(self) -> int:
        return int(self.image.size)

    def subset(self, rows: np.ndarray) -> Detections:
        return Detections(self.image[rows], self.category[rows], self.boxes[rows], self.score[rows])


def _listed(values) -> str:
    values = list(values)
    shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in values[:_MAX_LISTED])
    return shown + (", ..." if len(values) > _MAX_LISTED else "")


def _rows(mask: np.ndarray) -> str:
    where = np.flatnonzero(mask)
    word = "row" if where.size == 1 else "rows"
    return f"{where.size} {'box' if where.size == 1 else 'boxes'} ({word} {_listed(where)})"


def check_boxes(boxes, what: str) -> np.ndarray:
    """``boxes`` as float64 (n, 4) ``x, y, w, h``; finite, with no negative width or height."""
    try:
        arr = np.asarray(boxes, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{what}: a box is not four numbers; every bbox must be [x, y, width, height]."
        ) from None
    if arr.size == 0:
        arr = arr.reshape(0, 4)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(
            f"{what}: boxes must be four numbers x, y, w, h each, got shape {arr.shape}."
        )
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        raise ValueError(
            f"{what}: {_rows(bad)} with a missing or infinite coordinate; every box needs "
            "finite x, y, width and height."
        )
    for col, name in ((2, "width"), (3, "height")):
        neg = arr[:, col] < 0
        if neg.any():
            raise ValueError(
                f"{what}: {_rows(neg)} with a negative {name} (first: {arr[neg][0, col]:g}); "
                "boxes are x, y, width, height with width and height >= 0 "
                "(convert x1, y1, x2, y2 corners with width = x2 - x1)."
            )
    return arr


def _plural(kind: str) -> str:
    return kind[:-1] + "ies" if kind.endswith("y") else kind + "s"


def _index_of(values: np.ndarray, known: np.ndarray, what: str, kind: str, fix: str) -> np.ndarray:
    """Positions of ``values`` in the sorted ``known``; unknown values named in the error."""
    values = np.asarray(values)
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    try:
        pos = np.searchsorted(known, values)
    except TypeError:
        pos = None
    if pos is not None:
        inside = pos < known.size
        ok = np.zeros(values.size, dtype=bool)
        ok[inside] = known[pos[inside]] == values[inside]
    if pos is None or not ok.all():
        if pos is None:
            missing = sorted({str(v) for v in values.tolist()} - {str(v) for v in known.tolist()})
        else:
            missing = sorted(set(values[~ok].tolist()), key=str)
        as_text = {str(v) for v in known.tolist()}
        if all(str(v) in as_text for v in missing):  # "1" against 1: the same ids, typed apart
            sample = next(k for k in known.tolist() if str(k) == str(missing[0]))
            fix = (
                f"they are the ground truth's ids written as {type(missing[0]).__name__} "
                f"({missing[0]!r}) where the ground truth has {type(sample).__name__} "
                f"({sample!r}): write the ids the same way in both files."
            )
        raise ValueError(
            f"{what}: {len(missing)} unknown {kind if len(missing) == 1 else _plural(kind)} "
            f"({_listed(missing)}) not in the ground truth; {fix}"
        )
    return pos.astype(np.int64)


def ground_truth_from_arrays(
    *,
    image_ids,
    box_image_ids,
    category_ids,
    box_category_ids,
    boxes,
    category_names=None,
    area=None,
    iscrowd=None,
    difficult=None,
    ann_id=None,
    has_areas: bool = True,
    image_sizes=None,
    what: str = "ground truth",
) -> GroundTruth:
    """Check and build a :class:`GroundTruth` from columns (every reader ends here)."""
    image_ids = np.asarray(image_ids)
    order = np.argsort(image_ids, kind="stable")
    image_ids = image_ids[order]
    if image_ids.size and (image_ids[1:] == image_ids[:-1]).any():
        dup = sorted(set(image_ids[1:][image_ids[1:] == image_ids[:-1]].tolist()), key=str)
        raise ValueError(
            f"{what}: image id {_listed(dup)} is listed more than once; ids must be unique."
        )
    sizes = None
    if image_sizes is not None:
        sizes = np.asarray(image_sizes, dtype=np.float64).reshape(-1, 2)[order]
    cat_ids = np.asarray(category_ids)
    cat_order = np.argsort(cat_ids, kind="stable")
    cat_ids = cat_ids[cat_order]
    if cat_ids.size and (cat_ids[1:] == cat_ids[:-1]).any():
        raise ValueError(f"{what}: a category id is listed more than once; ids must be unique.")
    if category_names is None:
        names = tuple(str(c) for c in cat_ids)
    else:
        names = tuple(str(category_names[i]) for i in cat_order)
    arr = check_boxes(boxes, what)
    n = arr.shape[0]
    image = _index_of(
        np.asarray(box_image_ids),
        image_ids,
        what,
        "image id",
        "every annotation's image_id must be one of the images.",
    )
    category = _index_of(
        np.asarray(box_category_ids),
        cat_ids,
        what,
        "category",
        "every annotation's category must be one of the categories.",
    )
    area = arr[:, 2] * arr[:, 3] if area is None else np.asarray(area, dtype=np.float64)
    if area.shape != (n,) or not np.isfinite(area).all() or (area < 0).any():
        raise ValueError(f"{what}: every area must be a finite number >= 0, one per box.")

    def flags(values, name):
        if values is None:
            return np.zeros(n, dtype=bool)
        values = np.asarray(values)
        if values.shape != (n,):
            raise ValueError(f"{what}: {name} must have one value per box.")
        try:
            num = values.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{what}: {name} must be 0 or 1 (or true/false) for every box."
            ) from None
        if not np.isin(num, (0.0, 1.0)).all():
            raise ValueError(f"{what}: {name} must be 0 or 1 (or true/false) for every box.")
        return num.astype(bool)

    ann = (
        np.arange(1, n + 1, dtype=np.int64)
        if ann_id is None
        else np.asarray(ann_id, dtype=np.int64)
    )
    return GroundTruth(
        image_ids=image_ids,
        category_ids=cat_ids,
        category_names=names,
        image=image,
        category=category,
        boxes=arr,
        area=area,
        iscrowd=flags(iscrowd, "iscrowd"),
        difficult=flags(difficult, "difficult"),
        ann_id=ann,
        has_areas=bool(has_areas),
        image_sizes=sizes,
    )


def detections_from_arrays(
    ground_truth: GroundTruth,
    *,
    box_image_ids,
    box_category_ids,
    boxes,
    scores,
    what: str = "detections",
) -> Detections:
    """Check and build :class:`Detections` against ``ground_truth``."""
    arr = check_boxes(boxes, what)
    n = arr.shape[0]
    try:
        score = np.asarray(scores, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: every detection needs a numeric score.") from None
    if score.shape != (n,):
        raise ValueError(
            f"{what}: every detection needs one score ({score.size} scores for {n} boxes)."
        )
    bad = ~np.isfinite(score)
    if bad.any():
        raise ValueError(
            f"{what}: {_rows(bad)} with a missing or infinite score; scores must be finite."
        )
    image = _index_of(
        np.asarray(box_image_ids),
        ground_truth.image_ids,
        what,
        "image id",
        "detections may only be on images of the ground truth "
        "(check that both files come from the same split).",
    )
    category = _index_of(
        np.asarray(box_category_ids),
        ground_truth.category_ids,
        what,
        "category",
        "use the ground truth's category ids (or names).",
    )
    return Detections(image=image, category=category, boxes=arr, score=score)
