"""The worked example's page blames only the setting that is wrong: δ typed as no number names δ,
not c (headless Chromium, as tests/test_example_page.py drives it)."""
import pytest
from selenium.webdriver.common.by import By

from test_example_page import browser, derived, page_file, type_into  # noqa: F401 - the fixtures


@pytest.mark.parametrize("box, text, named, not_named", [
    ("delta-input", "abc", "δ must be a number", "c must be"),
    ("probe-input", "1/", "x must be a number", "δ must be"),
    ("c-input", "-2", "c must be a positive number", "δ must be"),
])
def test_the_banner_names_only_the_wrong_setting(browser, box, text, named, not_named):  # noqa: F811
    type_into(browser, box, text)
    banner = browser.find_element(By.ID, "error").text
    assert named in banner and not_named not in banner
    type_into(browser, box, "1")
    assert browser.find_element(By.ID, "error").text == ""
