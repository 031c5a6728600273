"""The worked example's page in a real browser: headless Chromium (Debian's chromium and
chromium-driver, which .ci/run installs) driven by Selenium.  Every readout is compared with the
exact value from Python, at settings chosen by typing into the boxes and by moving the sliders."""
import re
from fractions import Fraction

import pytest
import sympy as sp
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from proofs.commands import example_page
from proofs import worked_example as example
from proofs.commands import example_readings

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def derived():
    return example.derive()


@pytest.fixture(scope="module")
def page_file(derived, tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "example.html"
    example_page.write_page(str(path), derived)
    return path


@pytest.fixture(scope="module")
def browser(page_file):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(argument)
    # the system driver, so that Selenium never looks for one on the network
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.get(page_file.as_uri())
    yield driver
    driver.quit()


def type_into(browser, box_id, text):
    box = browser.find_element(By.ID, box_id)
    box.clear()
    box.send_keys(text)


def used_settings(browser):
    """(c, δ, x) as the page shows them in its boxes, exactly."""
    return tuple(Fraction(browser.find_element(By.ID, f"{name}-input").get_attribute("value"))
                 for name in ("c", "delta", "probe"))


def shown_exactly(text):
    """The exact value in a readback such as '1/3 ≈ 0.333333333333', '= 0.1' or '1e400'."""
    return Fraction(text.lstrip("= ").split(" ≈ ")[0])


def assert_readouts_exact(browser, derived, settings):
    assert browser.find_element(By.ID, "error").text == ""
    c_value, perturbation, probe = settings
    assert shown_exactly(browser.find_element(By.ID, "c-used").text) == c_value
    expected = example_readings.exact_readings(c_value, perturbation, probe, derived)
    assert set(expected) == set(example_page.READOUTS)
    for name, value in expected.items():
        shown = float(browser.find_element(By.ID, name).text)
        exact = sp.N(value, 30)
        if exact == 0:
            assert shown == 0, (name, settings, shown)
        else:
            assert abs(shown - exact) <= TOLERANCE * abs(exact), (name, settings, shown, exact)
    # the branch of L(c + δ, 1/c) is named, the dead ReLU when it applies
    _, _, dead = example_readings.first_weight_branch(c_value, perturbation, derived)
    branch = browser.find_element(By.ID, "branch").text
    assert branch.startswith("dead ReLU") == (dead is not None), (settings, branch)
    # the plot marks the c in use
    marker = browser.find_element(By.ID, "c-marker")
    assert float(marker.get_attribute("data-c")) == pytest.approx(float(c_value), rel=1e-15)


# c = 10⁻³ with δ = 0; δ < −c with a negative probe; the kink δ = −c; a large c; an exact fraction
TYPED = [("1e-3", "0", "1.5"), ("0.001", "-0.5", "-2"), ("2", "-2", "0"), ("1000", "0.25", "3"),
         ("0.37", "-0.1", "-0.75"), ("7/3", "1/3", "1/7")]


def test_page_loads_nothing_from_the_network(page_file):
    text = page_file.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", text)
    assert "http://www.w3.org/2000/svg" in text      # the SVG namespace, not a request
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text)


def test_page_shows_data_and_loss(browser):
    data, loss = example_readings.data_and_loss()
    assert browser.find_element(By.ID, "data").text == data
    assert browser.find_element(By.ID, "loss").text == loss


@pytest.mark.parametrize("c_text, delta_text, probe_text", TYPED)
def test_typed_settings(browser, derived, c_text, delta_text, probe_text):
    type_into(browser, "c-input", c_text)
    type_into(browser, "delta-input", delta_text)
    type_into(browser, "probe-input", probe_text)
    assert used_settings(browser) == tuple(Fraction(t) for t in (c_text, delta_text, probe_text))
    assert_readouts_exact(browser, derived, used_settings(browser))


@pytest.mark.parametrize("box", ["c", "delta", "probe"])
def test_every_box_takes_an_exact_value_and_shows_it_back(browser, box):
    for text in ("1/3", "0.1", "-3/10", "1e400"):
        type_into(browser, f"{box}-input", text)
        # the box keeps what was typed (no number field turning 1/3 into 13) ...
        assert browser.find_element(By.ID, f"{box}-input").get_attribute("value") == text
        # ... and the page reads it as the exact value Python's Fraction reads
        echo = browser.find_element(By.ID, f"{box}-exact").text
        assert shown_exactly(echo) == Fraction(text), (box, text, echo)
    # beyond the floating-point range the readouts say so rather than show a wrong number
    error = browser.find_element(By.ID, "error").text
    assert "floating point" in error and "python -m proofs example" in error
    assert {browser.find_element(By.ID, name).text for name in example_page.READOUTS} == {"—"}
    type_into(browser, f"{box}-input", "x/2")
    assert "not a number" in browser.find_element(By.ID, f"{box}-exact").text
    type_into(browser, f"{box}-input", {"c": "1", "delta": "0.1", "probe": "1.5"}[box])
    assert browser.find_element(By.ID, "error").text == ""


def test_sliders(browser, derived):
    type_into(browser, "c-input", "1")
    type_into(browser, "delta-input", "0.1")
    type_into(browser, "probe-input", "1.5")
    # page keys move a slider by a tenth of its range, arrows by one step
    moves = [("c-slider", Keys.PAGE_DOWN + Keys.ARROW_LEFT * 7), ("delta-slider", Keys.ARROW_LEFT * 45),
             ("probe-slider", Keys.PAGE_DOWN * 4 + Keys.ARROW_RIGHT * 3),
             ("c-slider", Keys.PAGE_UP * 3 + Keys.ARROW_RIGHT * 11), ("delta-slider", Keys.PAGE_DOWN * 5)]
    seen = set()
    for slider, keys in moves:
        browser.find_element(By.ID, slider).send_keys(keys)
        settings = used_settings(browser)
        seen.add(settings)
        assert_readouts_exact(browser, derived, settings)
    c_values = {s[0] for s in seen}
    assert min(c_values) < Fraction(1, 2) and max(c_values) > 10          # the slider moved c both ways
    assert any(s[1] < -s[0] for s in seen) and any(s[2] < 0 for s in seen)


def test_screenshot(browser, tmp_path):
    type_into(browser, "c-input", "0.05")
    type_into(browser, "delta-input", "-0.02")
    type_into(browser, "probe-input", "2")
    target = tmp_path / "page.png"
    assert browser.save_screenshot(str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 20_000


def test_the_page_opens_at_the_command_line_settings(cli, browser, derived, tmp_path, page_file):
    target = tmp_path / "page.html"
    result = cli("example", "--c", "1/3", "--perturbation", "-0.3", "--probe", "2", "--html", str(target))
    assert result.returncode == 0, result.stderr
    assert "page written to" in result.stdout
    text = target.read_text(encoding="utf-8")
    assert 'id="c-slider"' in text and "Math.pow(c, 2)" in text
    browser.get(target.as_uri())
    try:
        assert [browser.find_element(By.ID, f"{name}-input").get_attribute("value")
                for name in ("c", "delta", "probe")] == ["1/3", "-0.3", "2"]
        assert used_settings(browser) == (Fraction(1, 3), Fraction(-3, 10), Fraction(2))
        assert_readouts_exact(browser, derived, used_settings(browser))
    finally:
        browser.get(page_file.as_uri())      # the other tests start from the default page


def test_box_texts_are_exact():
    for value, text in ((Fraction(10) ** 400, "1e400"), (Fraction(-3, 10), "-0.3"), (Fraction(1, 3), "1/3"),
                        (Fraction(2), "2"), (Fraction(1, 8), "0.125"), (Fraction(-7, 3), "-7/3")):
        assert example_page.box_text(value) == text
        assert Fraction(text) == value


@pytest.mark.parametrize("box, text", [("c-input", "-1"), ("c-input", "0")])
def test_page_refuses_a_non_positive_c(browser, box, text):
    type_into(browser, box, text)
    assert "c must be a positive number" in browser.find_element(By.ID, "error").text
    assert {browser.find_element(By.ID, name).text for name in example_page.READOUTS} == {"—"}
    type_into(browser, box, "1")
    assert browser.find_element(By.ID, "error").text == ""
