"""Tests of analytic.splitting.paper's functions (its rows run in tests/contract/test_reproduce.py)."""




def test_figure1_need_scale_answers_at_any_size():
    """figure1_need_scale(10**50) did not answer in 60 s (a float start off by 1e16, stepped by ones). Reference:
    brute force over k = 32..3000 and the defining inequalities f^3 <= k^2/1024 < (f+1)^3 in integers at 10**50."""
    from analytic.splitting import figure1_need_scale

    for k in range(32, 3001):
        f = 1
        while 1024 * (f + 1) ** 3 <= k * k:
            f += 1
        assert figure1_need_scale(k) == f
    f = figure1_need_scale(10**50)
    assert 1024 * f**3 <= 10**100 < 1024 * (f + 1) ** 3
