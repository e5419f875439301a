import pytest

from lmms_plugins.tasks.abacus.aggregate import leaderboard, pool


def _items(rows):
    return [dict(cf=cf, sc=sc, oc=oc, edit_score=None if cf is None else cf * sc * oc, exact=ex, status=st) for cf, sc, oc, ex, st in rows]


def test_score_is_product_of_means_not_mean_of_products():
    items = _items([(1.0, 1.0, 1.0, True, "ok"), (0.0, 0.5, 0.5, False, "ok")])
    lb = leaderboard(items)
    assert (lb.cf, lb.sc, lb.oc) == (0.5, 0.75, 0.75)
    assert lb.score == pytest.approx(0.5 * 0.75 * 0.75)
    assert lb.edit_score == pytest.approx(0.5)
    assert lb.exact_count == 0.5


def test_published_factor_means_give_published_score():
    # 100 edits whose factor means are Seedream 4.0's: 0.60, 0.79, 0.66 -> Score 0.31
    items = _items([(1.0 if i < 60 else 0.0, 0.79, 1.0 if i % 50 < 33 else 0.0, i < 40, "ok") for i in range(100)])
    lb = leaderboard(items)
    assert (round(lb.cf, 2), round(lb.sc, 2), round(lb.oc, 2)) == (0.60, 0.79, 0.66)
    assert round(lb.score, 2) == 0.31


def test_intervals_cover_and_are_reproducible():
    items = _items([(i % 3 / 2, 0.5 + i % 5 / 10, 1 - i % 4 / 4, i % 2 == 0, "ok") for i in range(60)])
    a, b = leaderboard(items), leaderboard(items)
    assert a.ci95 == b.ci95
    for name in ("cf", "sc", "oc", "score", "edit_score", "exact_count"):
        lo, hi = a.ci95[name]
        assert lo <= getattr(a, name) <= hi and lo < hi


def test_unscorable_samples_count_as_zero_and_are_counted():
    items = _items([(1.0, 1.0, 1.0, True, "ok"), (None, None, None, None, "unknown_category")])
    lb = leaderboard(items)
    assert lb.cf == 0.5 and lb.status_counts == {"ok": 1, "unknown_category": 1}


def test_pool_is_exact():
    a = _items([(1.0, 0.9, 1.0, True, "ok")] * 3)
    b = _items([(0.5, 0.5, 0.0, False, "ok"), (0.0, 0.7, 0.5, False, "missing_image")])
    whole = leaderboard(a + b)
    pooled = pool([leaderboard(a).as_dict(), leaderboard(b).as_dict()])
    for name in ("cf", "sc", "oc", "score", "edit_score", "exact_count"):
        assert pooled[name] == pytest.approx(getattr(whole, name))
    assert pooled["n"] == 5 and pooled["status_counts"] == {"missing_image": 1, "ok": 4}


def test_empty():
    assert leaderboard([]).n == 0
