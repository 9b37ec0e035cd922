"""Issue 36: the web search box with Gmail's operators, in Chromium by role and accessible name: the operators offered
as suggestions, the parsed operators as removable chips, a query that can't be read said in a live region; axe-core
finds nothing on the search with chips nor on the error."""
import uuid
from urllib.parse import quote as url_quote

from support.accounts import ACCEPTANCE_USER
from support.browser import axe_violations, by_xpath
from support.messages import acceptance_message as message
from support.tern import sync
from support.waiting import wait_until

USER = ACCEPTANCE_USER
ROWS = "//ul[@aria-labelledby='list-title']//a[contains(@class, 'thread-link')]"


def row_labels(browser):
    return [row.get_attribute("aria-label") for row in browser.find_elements("xpath", ROWS)]


def test_operators_become_chips_that_remove_themselves_and_axe_finds_nothing(browser, app):
    stamp = uuid.uuid4().hex[:10]
    app["imap"].append("INBOX", "", None, message(f"Chips unread {stamp}", f"Planted {stamp}."))
    app["imap"].append("INBOX", "(\\Seen)", None, message(f"Chips read {stamp}", f"Planted {stamp}."))
    app["imap"].append("INBOX", "", None, message(f"Chips other {stamp}", f"Planted {stamp}.", sender="Yann <yann@example.org>"))
    sync(app["home"], USER)
    browser.get(f"{app['base']}/mail?q={url_quote(f'{stamp} from:zoe is:unread')}")
    assert wait_until(lambda: len(row_labels(browser)) == 1)
    assert f"Chips unread {stamp}" in row_labels(browser)[0]
    chips = by_xpath(browser, "//ul[@aria-label='Search filters']")
    assert [chip.text.replace("×", "").strip() for chip in chips.find_elements("xpath", "./li")] == ["from:zoe", "is:unread"]
    assert axe_violations(browser) == []
    # Each chip's remove control is a link named for its filter; following it searches without that filter.
    by_xpath(browser, "//a[@aria-label='Remove filter is:unread']").click()
    assert wait_until(lambda: "is%3Aunread" not in browser.current_url and "is:unread" not in browser.current_url)
    assert wait_until(lambda: len(row_labels(browser)) == 2)
    assert browser.find_element("id", "search-input").get_attribute("value") == f"{stamp} from:zoe"
    assert browser.find_elements("xpath", "//a[@aria-label='Remove filter from:zoe']")
    assert not browser.find_elements("xpath", "//a[@aria-label='Remove filter is:unread']")
    # A negated operator is a chip too, and OR makes one filter of both sides (no chip).
    browser.get(f"{app['base']}/mail?q={url_quote(f'{stamp} -from:zoe')}")
    assert wait_until(lambda: len(row_labels(browser)) == 1 and f"Chips other {stamp}" in row_labels(browser)[0])
    by_xpath(browser, "//a[@aria-label='Remove filter -from:zoe']")
    browser.get(f"{app['base']}/mail?q={url_quote(f'{stamp} from:zoe OR from:yann')}")
    assert wait_until(lambda: len(row_labels(browser)) == 3)
    assert not browser.find_elements("xpath", "//ul[@aria-label='Search filters']")


def test_a_query_that_cannot_be_read_is_said_in_a_live_region(browser, app):
    browser.get(f"{app['base']}/mail")
    box = by_xpath(browser, "//form[@role='search']//input[@type='search']")
    box.send_keys("budget before:2024-13-01")

    def said():
        found = browser.find_elements("xpath", "//*[@id='search-error' and @role='status']")
        return found[0].text if found else ""

    assert wait_until(lambda: "cannot read the date in before:2024-13-01" in said()), said()
    assert wait_until(lambda: browser.find_element("id", "search-input").get_attribute("aria-invalid") == "true")
    assert browser.find_element("id", "search-input").get_attribute("aria-describedby") == "search-error"
    assert "Nothing was searched" in browser.find_element("id", "list-pane").text
    assert "SQL" not in browser.page_source and "fts5" not in browser.page_source.lower()
    assert axe_violations(browser) == []


def test_the_operators_are_offered_as_suggestions_for_the_word_being_typed(browser, app):
    browser.get(f"{app['base']}/mail")
    box = by_xpath(browser, "//form[@role='search']//input[@type='search']")
    assert box.get_attribute("list") == "search-operators"
    options = lambda: browser.execute_script(  # noqa: E731
        "return [...document.getElementById('search-operators').options].map(o => o.value)")
    assert "from:" in options() and "has:attachment" in options() and "older_than:" in options()
    box.send_keys("budget fr")
    assert wait_until(lambda: options() == ["budget from:"])
    box.send_keys("om:alice -is:un")
    assert wait_until(lambda: options() == ["budget from:alice -is:unread"])
