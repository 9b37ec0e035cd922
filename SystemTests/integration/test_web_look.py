"""Issue 39, the look and feel of `tern serve` in Debian's Chromium: the colour scheme emulated through CDP
(`Emulation.setEmulatedMedia`), both themes checked by axe-core (contrast included) on the list, a conversation, the
composer and Settings; message frames sized to their bodies (a one-line reply and a ~100 KB newsletter); print media
showing the conversation only; density and text size from Settings, surviving a reload. Elements are found by role
and accessible name."""
import os
import ssl
import subprocess
import uuid

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for
from support.messages import plant_thread, raw_message
from support.servers import free_port, user_address
from support.tern import TERN
from support.waiting import wait_until
from support.web import TOKEN, origin, sign_in, start_serve

USER = "bob"
LIGHT = {"background": "rgb(255, 255, 255)", "text": "rgb(28, 28, 30)"}
DARK = {"background": "rgb(23, 24, 26)", "text": "rgb(232, 234, 237)"}


def newsletter_html(stamp):
    """About 100 KB of a newsletter that paints its own colours: a table of 220 stories, with the heights in percent
    that would tie a body to its frame's height."""
    story = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. " * 3
    rows = "".join(
        f'<tr><td style="padding: 12px; color: #222222; background-color: #f7f3e8; font-family: Georgia, serif; font-size: 15px">'
        f'<h2 style="color: #7a2e00; margin: 0 0 6px">Story {index} of {stamp}</h2><p style="margin: 0">{story}</p></td></tr>'
        for index in range(220))
    return ('<style>html, body { height: 100% !important; }</style>'
            f'<p>The newsletter of {stamp}.</p><table width="100%" height="100%" bgcolor="#fffdf7" cellpadding="0" cellspacing="0">{rows}</table>'
            f'<p>The end of {stamp}.</p>')


@pytest.fixture(scope="module")
def site(servers, tmp_path_factory):
    """A synced account with a one-line message, a long newsletter and a three-message thread with an attachment,
    under `tern serve --no-sync`."""
    home = tmp_path_factory.mktemp("look-home")
    add_account(home, servers, USER)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    stamp = uuid.uuid4().hex[:10]
    to = user_address(servers, USER)
    imap.append("INBOX", "(\\Seen)", None, raw_message(to, f"Short {stamp}", text=f"Thanks, see you at four. {stamp}", minutes_ago=3))
    html = newsletter_html(stamp)
    assert 95_000 < len(html) < 130_000, len(html)
    imap.append("INBOX", "(\\Seen)", None, raw_message(to, f"Newsletter {stamp}", text=f"The newsletter {stamp}", html=html,
                                                       sender="news@example.net", minutes_ago=2))
    hero = (f'<div style="height: 100vh; background-color: #eeeeff"><h1>Hero of {stamp}</h1></div>'
            f'<section style="min-height: 50dvh"><p>Below the hero.</p></section><p>After the hero {stamp}.</p>')
    imap.append("INBOX", "(\\Seen)", None, raw_message(to, f"Hero {stamp}", text=f"Hero {stamp}", html=hero,
                                                       sender="hero@example.net", minutes_ago=4))
    plant_thread(servers, imap, 3, stamp=stamp, to=USER, attachments=[(f"minutes-{stamp}.txt", b"The minutes.")])
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(home)), check=True, capture_output=True, timeout=180)
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    web = sign_in(port)
    yield {"home": home, "port": port, "base": web.base, "stamp": stamp}
    server.terminate()
    server.wait(timeout=10)
    imap.logout()


@pytest.fixture(scope="module")
def browser(site):
    driver = chromium(offline=True, page_load_timeout=15)
    driver.get(f"{origin(site['port'])}/?token={TOKEN}")
    yield driver
    driver.quit()


@pytest.fixture(autouse=True)
def system_light(browser):
    """Each test starts with the system's scheme light and screen media."""
    emulate(browser)
    yield
    emulate(browser)


def emulate(browser, scheme="light", media=""):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"media": media, "features": [{"name": "prefers-color-scheme", "value": scheme}]})


def page_colours(browser):
    return browser.execute_script(
        "return {background: getComputedStyle(document.documentElement).backgroundColor, text: getComputedStyle(document.body).color};")


def frame_of(browser, sender_words):
    return by_xpath(browser, f"//main//iframe[starts-with(@title, 'Message from {sender_words}')]")


FRAME_STATE = """
  const frame = arguments[0], root = frame.contentDocument.documentElement, body = frame.contentDocument.body;
  const style = frame.contentWindow.getComputedStyle(body);
  return {fitted: frame.dataset.fitted === "1", frame: frame.getBoundingClientRect().height,
          content: body.getBoundingClientRect().height, lineHeight: parseFloat(style.lineHeight),
          padding: parseFloat(style.paddingTop) + parseFloat(style.paddingBottom),
          scrollHeight: root.scrollHeight, clientHeight: root.clientHeight, overflowY: getComputedStyle(root).overflowY,
          background: style.backgroundColor, text: style.color, surface: root.dataset.surface ?? ""};
"""


def frame_state(browser, frame):
    assert wait_until(lambda: browser.execute_script("return arguments[0].dataset.fitted === '1'", frame), 10)
    return browser.execute_script(FRAME_STATE, frame)


def set_appearance(browser, site, **choices):
    """Settings' Appearance section, as a person uses it: each select by its label, then Save appearance."""
    from selenium.webdriver.support.ui import Select
    browser.get(f"{site['base']}/settings")
    section = by_xpath(browser, "//section[h2[normalize-space()='Appearance']]")
    for label, text in choices.items():
        Select(section.find_element("xpath", f".//select[@id=//label[normalize-space()='{label}']/@for]")).select_by_visible_text(text)
    section.find_element("xpath", ".//button[normalize-space()='Save appearance']").click()
    by_xpath(browser, "//*[@role='status' and contains(., 'Settings saved.')]")


# ---- Dark mode ---------------------------------------------------------------------------------------------------

def test_the_app_follows_the_systems_colour_scheme(browser, site):
    browser.get(f"{site['base']}/mail")
    assert page_colours(browser) == LIGHT
    emulate(browser, "dark")
    assert wait_until(lambda: page_colours(browser) == DARK), page_colours(browser)


def test_a_plain_body_takes_the_theme_and_a_coloured_newsletter_keeps_its_light_surface(browser, site):
    emulate(browser, "dark")
    open_thread_by_name(browser, site, f"Short {site['stamp']}")
    plain = frame_state(browser, frame_of(browser, "zoe@example.org"))
    assert (plain["background"], plain["text"], plain["surface"]) == (DARK["background"], DARK["text"], ""), plain
    open_thread_by_name(browser, site, f"Newsletter {site['stamp']}")
    newsletter = frame_state(browser, frame_of(browser, "news@example.net"))
    assert (newsletter["background"], newsletter["surface"]) == ("rgb(255, 255, 255)", "light"), newsletter


def test_the_theme_setting_overrides_the_system_and_system_follows_it_again(browser, site):
    try:
        set_appearance(browser, site, Theme="Dark")
        browser.get(f"{site['base']}/mail")
        assert page_colours(browser) == DARK
        set_appearance(browser, site, Theme="Light")
        emulate(browser, "dark")
        browser.get(f"{site['base']}/mail")
        assert page_colours(browser) == LIGHT
    finally:
        set_appearance(browser, site, Theme="Same as the system")
    browser.get(f"{site['base']}/mail")
    assert page_colours(browser) == DARK


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_in_either_theme(browser, site, scheme):
    """The list, a conversation, the composer and Settings; contrast included."""
    emulate(browser, scheme)
    browser.get(f"{site['base']}/mail")
    assert axe_violations(browser) == [], "list"
    open_thread_by_name(browser, site, f"Thread {site['stamp']}")
    frame_state(browser, frame_of(browser, "zoe@example.org"))
    assert axe_violations(browser) == [], "conversation"
    by_xpath(browser, "//header//a[normalize-space()='Compose']").click()
    by_xpath(browser, "//form//button[normalize-space()='Send']")
    assert axe_violations(browser) == [], "composer"
    browser.get(f"{site['base']}/settings")
    assert axe_violations(browser) == [], "settings"


# ---- Frames sized to their bodies --------------------------------------------------------------------------------

def test_a_one_line_messages_frame_is_no_taller_than_its_line_and_padding(browser, site):
    open_thread_by_name(browser, site, f"Short {site['stamp']}")
    state = frame_state(browser, frame_of(browser, "zoe@example.org"))
    assert state["frame"] <= state["content"] + 1, state
    assert state["content"] <= 2 * state["lineHeight"] + state["padding"] + 1, state  # one line (two if it wraps)
    assert state["scrollHeight"] <= state["clientHeight"], state


def test_a_long_newsletters_frame_shows_it_whole_without_an_inner_scrollbar(browser, site):
    open_thread_by_name(browser, site, f"Newsletter {site['stamp']}")
    state = frame_state(browser, frame_of(browser, "news@example.net"))
    assert state["content"] > 5000, state  # 220 stories
    assert abs(state["frame"] - state["content"]) <= 1, state
    assert state["scrollHeight"] <= state["clientHeight"] and state["overflowY"] == "hidden", state
    # Its last line is inside the frame.
    end = browser.execute_script(
        "const f = arguments[0]; const e = [...f.contentDocument.querySelectorAll('p')].pop();"
        "return [e.getBoundingClientRect().bottom, f.clientHeight];", frame_of(browser, "news@example.net"))
    assert 0 < end[0] <= end[1], end


def test_a_body_sized_in_the_viewports_height_is_shown_whole_at_the_nominal_size(browser, site):
    """Issue 39: `height: 100vh` inside a frame as tall as its content would follow the frame; the sanitizer writes it
    as 800 px (and `50dvh` as 400 px), so the frame settles and the text after it is inside."""
    open_thread_by_name(browser, site, f"Hero {site['stamp']}")
    frame = frame_of(browser, "hero@example.net")
    state = frame_state(browser, frame)
    heights = browser.execute_script(
        "const d = arguments[0].contentDocument; return [d.querySelector('div').getBoundingClientRect().height,"
        " d.querySelector('section').getBoundingClientRect().height];", frame)
    assert heights == [800, 400], heights
    assert abs(state["frame"] - state["content"]) <= 1 and state["scrollHeight"] <= state["clientHeight"], state
    end = browser.execute_script(
        "const f = arguments[0]; const e = [...f.contentDocument.querySelectorAll('p')].pop();"
        "return [e.textContent, e.getBoundingClientRect().bottom, f.clientHeight];", frame)
    assert end[0] == f"After the hero {site['stamp']}." and 0 < end[1] <= end[2], end


def test_the_frame_runs_nothing_though_the_page_can_measure_it(browser, site):
    open_thread_by_name(browser, site, f"Short {site['stamp']}")
    frame = frame_of(browser, "zoe@example.org")
    assert "allow-scripts" not in frame.get_attribute("sandbox").split()
    assert browser.execute_script("return arguments[0].contentDocument.scripts.length === 0", frame)


# ---- Printing ----------------------------------------------------------------------------------------------------

def test_print_media_shows_the_conversation_only_in_the_light_theme(browser, site):
    open_thread_by_name(browser, site, f"Thread {site['stamp']}")
    emulate(browser, "dark", media="print")
    shown = browser.execute_script("""
      const shown = (selector) => [...document.querySelectorAll(selector)].some(e => e.checkVisibility());
      return {header: shown('.app-header'), folders: shown('.folders-pane'), list: shown('.list-pane'),
              toolbar: shown('[role=toolbar]'), menus: shown('.message-actions, .message-links, .star-form'),
              downloads: shown('.attachment button, .attachment .button'), messages: shown('article.message'),
              headers: shown('.printed-headers'), attachment: shown('.attachment-name'),
              background: getComputedStyle(document.documentElement).backgroundColor};
    """)
    assert shown == {"header": False, "folders": False, "list": False, "toolbar": False, "menus": False, "downloads": False,
                     "messages": True, "headers": True, "attachment": True, "background": "rgb(255, 255, 255)"}, shown
    printed = by_xpath(browser, "//main//article[last()]//dl[contains(@class, 'printed-headers')]").text
    assert "From" in printed and "zoe@example.org" in printed and "Date" in printed, printed
    emulate(browser, "light")
    assert not browser.find_element("xpath", "//main//article[last()]//dl[contains(@class, 'printed-headers')]").is_displayed()


def test_the_print_action_opens_every_message_then_prints(browser, site):
    open_thread_by_name(browser, site, f"Thread {site['stamp']}")
    assert len(browser.find_elements("xpath", "//main//article[contains(@class, 'collapsed')]")) == 2
    browser.execute_script("window.print = () => { window.tern_printed = document.querySelectorAll('iframe.message-body').length; };")
    by_xpath(browser, "//div[@role='toolbar']//button[normalize-space()='Print']").click()
    assert wait_until(lambda: browser.execute_script("return window.tern_printed"), 10)
    assert browser.execute_script("return window.tern_printed") == 3
    assert browser.find_elements("xpath", "//main//article[contains(@class, 'collapsed')]") == []


# ---- Density and text size ---------------------------------------------------------------------------------------

def row_height(browser, site):
    browser.get(f"{site['base']}/mail")
    row = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Short {site['stamp']}')]")
    return row.rect["height"]


def test_compact_density_and_200_percent_text_take_effect_and_survive_a_reload(browser, site):
    comfortable = row_height(browser, site)
    try:
        set_appearance(browser, site, Density="Compact")
        browser.refresh()
        assert by_xpath(browser, "//select[@id=//label[normalize-space()='Density']/@for]/option[@selected]").text == "Compact"
        compact = row_height(browser, site)
        assert compact < comfortable * 0.8, (compact, comfortable)
        set_appearance(browser, site, Density="Comfortable", **{"Text size": "200 %"})
        browser.refresh()
        assert by_xpath(browser, "//select[@id=//label[normalize-space()='Text size']/@for]/option[@selected]").text == "200 %"
        open_thread_by_name(browser, site, f"Short {site['stamp']}")
        layout = browser.execute_script("""
          const root = document.documentElement;
          return {rootSize: getComputedStyle(root).fontSize, sideways: root.scrollWidth > root.clientWidth,
                  listShown: document.querySelector('.list-pane').checkVisibility(),
                  back: document.querySelector('.back-button').checkVisibility()};
        """)
        # Twice the text, and the one-pane layout with Back, as at 200 % zoom; nothing scrolls sideways.
        assert layout == {"rootSize": "32px", "sideways": False, "listShown": False, "back": True}, layout
        frame = frame_of(browser, "zoe@example.org")
        state = frame_state(browser, frame)
        assert browser.execute_script("return arguments[0].contentDocument.documentElement.dataset.textSize", frame) == "200"
        assert browser.execute_script("return getComputedStyle(arguments[0].contentDocument.documentElement).zoom", frame) == "2"
        # The frame holds the zoomed body whole: twice the one line and its padding.
        assert abs(state["frame"] - state["content"]) <= 1 and state["scrollHeight"] <= state["clientHeight"], state
        assert state["content"] >= 1.9 * (state["lineHeight"] + state["padding"]), state
    finally:
        set_appearance(browser, site, Density="Comfortable", **{"Text size": "100 % (the browser's size)"})
