"""The publisher's console in headless Chromium, driven by Selenium against a running Depot.

    python3 console_test.py BASE_URL PUBLISHER_KEY SCOPED_KEY ADMIN_TOKEN WORK_DIR [SCREENSHOT_DIR]

PUBLISHER_KEY acts on every product; SCOPED_KEY only on com.example.console.

A wrong key sees an error and nothing else; the publisher creates a product, uploads a folder of plain
files (packed into a zip in the page), watches it stage, publishes it, finds it in /v1/products, uploads an
archive through a cut connection and after a reload, rolls back, drops an archive and schedules it, deletes a
version never published, meets the type lock, and signs out; a key scoped to the product sees it alone; the operator reads the reports. The page's zip writer and SHA-256 are checked
against Python's zipfile and hashlib. Prints "console test passed" at the end; any failure exits non-zero.
"""

import base64
import hashlib
import io
import json
import os
import random
import sys
import time
import urllib.request
import zipfile

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE, KEY, SCOPED, ADMIN, WORK = sys.argv[1:6]
SHOTS = sys.argv[6] if len(sys.argv) > 6 else WORK
PRODUCT = "com.example.console"


def step(text):
    print("step: " + text, flush=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def catalog():
    with urllib.request.urlopen(BASE + "/v1/products", timeout=120) as answer:
        products = json.load(answer)["products"]
    return {p["id"]: p for p in products}


def current_versions(product_id):
    product = catalog().get(product_id)
    return [c["version"] for c in product["contents"]] if product else []


def wait_for(driver, condition, what, timeout=120):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: condition(d))
    except TimeoutException:
        status = driver.execute_script(
            "const s = document.getElementById('upload-status'); const n = document.getElementById('notice');"
            "return [s && s.textContent, n && n.textContent, document.body.innerText.slice(0, 1500)];")
        raise AssertionError("timed out waiting for " + what + "; page says " + repr(status))


def text_of(driver, element_id):
    return driver.execute_script("const e = document.getElementById(arguments[0]); return e ? e.textContent : null;",
                                 element_id)


def visible(driver, element_id):
    return driver.execute_script("const e = document.getElementById(arguments[0]); return !!e && !e.hidden;",
                                 element_id)


def row_state(driver, version):
    return driver.execute_script(
        "const r = document.querySelector('#versions tr[data-version=\"' + arguments[0] + '\"]');"
        "return r ? r.dataset.state : null;", version)


def state_text(driver, version):
    return driver.execute_script(
        "const c = document.querySelector('#versions tr[data-version=\"' + arguments[0] + '\"] td.state');"
        "return c ? c.textContent : null;", version)


def release(product_id, version):
    request = urllib.request.Request(BASE + "/v1/publisher/products/" + product_id + "/versions",
                                     headers={"Authorization": "Bearer " + KEY})
    with urllib.request.urlopen(request, timeout=120) as answer:
        versions = json.load(answer)["versions"]
    return next((v.get("release") for v in versions if v["version"] == version), None)


def click(driver, by, selector, timeout=120):
    """Clicks the element found now. The console draws a product's view anew after each change it makes, so an element
    found a moment before may be gone by the click: it is then found again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return driver.find_element(by, selector).click()
        except StaleElementReferenceException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def click_in_row(driver, version, action):
    click(driver, By.CSS_SELECTOR, '#versions tr[data-version="%s"] button.%s' % (version, action))


def confirm(driver, expect):
    wait_for(driver, lambda d: d.execute_script("return document.getElementById('confirm').open"), "the dialog")
    said = text_of(driver, "confirm-text")
    check(expect in said, "the confirmation says %r, not %r" % (said, expect))
    driver.find_element(By.ID, "confirm-ok").click()
    return said


def sign_in(driver, token):
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token)
    driver.find_element(By.ID, "sign-in-button").click()


def stage(driver, version, choose, schedule=None):
    version_field = driver.find_element(By.ID, "upload-version")
    version_field.clear()
    version_field.send_keys(version)
    choose()
    driver.find_element(By.ID, "upload-start").click()
    wait_for(driver, lambda d: row_state(d, version) == "staged"
             and "staged" in (text_of(d, "upload-status") or ""), "version %s to stage" % version)


def drop_archive(driver, name):
    """Drops a zip made in the page onto the drop zone, with a schedule a day ahead."""
    driver.execute_script("""
        const schedule = new Date(Date.now() + 86400000);
        const local = new Date(schedule.getTime() - schedule.getTimezoneOffset() * 60000);
        document.getElementById("upload-schedule").value = local.toISOString().slice(0, 16);
        const files = [{path: "notes.txt", file: new File(["dropped " + arguments[0]], "notes.txt")}];
        return DepotZip.zipFolder(files, () => {}).then((blob) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([blob], arguments[0], {type: "application/zip", lastModified: 1700000000000}));
          const zone = document.getElementById("drop-zone");
          zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: transfer, bubbles: true, cancelable: true}));
          zone.dispatchEvent(new DragEvent("drop", {dataTransfer: transfer, bubbles: true, cancelable: true}));
        });
    """, name)
    wait_for(driver, lambda d: ("Archive " + name) in (text_of(d, "upload-chosen") or ""), "the drop to be taken")


def make_folder():
    folder = os.path.join(WORK, "Level Pack")
    os.makedirs(os.path.join(folder, "maps"), exist_ok=True)
    with open(os.path.join(folder, "readme.txt"), "w") as f:
        f.write("A level made for the console test.\n" * 200)
    with open(os.path.join(folder, "maps", "cave.json"), "w") as f:
        f.write('{"tiles": [[0, 1, 1, 0]]}\n')
    with open(os.path.join(folder, "maps", "noise.bin"), "wb") as f:
        f.write(random.Random(7).randbytes(3 << 20))
    return folder


def make_archive(name, megabytes, seed):
    path = os.path.join(WORK, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("notes.txt", "version made from an archive " + name + "\n")
        archive.writestr("media/blob.bin", random.Random(seed).randbytes(megabytes << 20))
    return path


def check_page_javascript(driver):
    step("the page's zip writer and SHA-256 agree with Python's zipfile and hashlib")
    packed = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const files = [
          {path: "b/inner.txt", file: new File(["inner text\\n"], "inner.txt", {lastModified: 1700000000000})},
          {path: "a.txt", file: new File(["first file"], "a.txt", {lastModified: 1700000000000})},
          {path: "ünïcode name.bin", file: new File([new Uint8Array(70000).map((_, i) => i % 251)], "u.bin")},
        ];
        DepotZip.zipFolder(files, () => {}).then(async (blob) => {
          const bytes = new Uint8Array(await blob.arrayBuffer());
          let binary = "";
          for (const b of bytes) binary += String.fromCharCode(b);
          const hasher = new DepotSha256();
          for (let i = 0; i < bytes.length; i += 1000 + (i % 7)) hasher.update(bytes.subarray(i, i + 1000 + (i % 7)));
          done({zip: btoa(binary), sha256: hasher.hex(), abc: new DepotSha256().update(new TextEncoder().encode("abc")).hex(),
                empty: new DepotSha256().hex()});
        }, (error) => done({error: String(error)}));
    """)
    check("error" not in packed, "zipFolder failed: %r" % packed)
    raw = base64.b64decode(packed["zip"])
    archive = zipfile.ZipFile(io.BytesIO(raw))
    check(archive.testzip() is None, "the zip's CRCs do not match")
    check(archive.namelist() == ["a.txt", "b/inner.txt", "ünïcode name.bin"], "names: %r" % archive.namelist())
    check(archive.read("b/inner.txt") == b"inner text\n", "inner.txt's bytes")
    check(archive.read("ünïcode name.bin") == bytes(i % 251 for i in range(70000)), "the binary file's bytes")
    check(all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist()), "entries are stored")
    check(packed["sha256"] == hashlib.sha256(raw).hexdigest(), "SHA-256 of the zip fed in odd pieces")
    check(packed["abc"] == hashlib.sha256(b"abc").hexdigest(), "SHA-256 of abc")
    check(packed["empty"] == hashlib.sha256(b"").hexdigest(), "SHA-256 of nothing")


def main():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                     "--disable-gpu"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    try:
        run(driver)
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
                  and "Content Security Policy" in e["message"]]
        check(not errors, "the page broke its Content-Security-Policy: %r" % errors)
    finally:
        driver.quit()
    print("console test passed", flush=True)


def run(driver):
    step("a wrong key sees an error and nothing else")
    driver.get(BASE + "/console")
    wait_for(driver, lambda d: visible(d, "sign-in"), "the sign-in form")
    sign_in(driver, "dpk_" + "0" * 40)
    wait_for(driver, lambda d: (text_of(d, "sign-in-error") or "") != "", "the error")
    check("Not signed in" in text_of(driver, "sign-in-error"), "the error says so")
    check(not visible(driver, "publisher") and not visible(driver, "operator"), "nothing else is shown")
    check(text_of(driver, "product-list") == "", "no product was listed")
    check(driver.execute_script("return sessionStorage.length") == 0, "nothing was kept")
    check_page_javascript(driver)

    step("the publisher signs in and creates a product")
    sign_in(driver, KEY)
    wait_for(driver, lambda d: visible(d, "publisher"), "the publisher's page")
    check(driver.execute_script("return document.cookie") == "", "no cookie")
    check(KEY in driver.execute_script("return sessionStorage.getItem('depot.console.credential')"), "key kept")
    wait_for(driver, lambda d: d.find_elements(By.ID, "new-product"), "the product list")
    driver.find_element(By.ID, "new-product").click()
    driver.find_element(By.ID, "product-id").send_keys(PRODUCT)
    driver.find_element(By.ID, "product-title-input").send_keys("Level 3: The <Frozen> Lake")
    Select(driver.find_element(By.ID, "product-type")).select_by_value("nonConsumable")
    driver.find_element(By.ID, "product-save").click()
    wait_for(driver, lambda d: text_of(d, "product-title") == "Level 3: The <Frozen> Lake", "the new product")
    check(driver.execute_script("return document.querySelectorAll('frozen').length") == 0,
          "the title is shown as text, not markup")

    step("a folder of plain files is uploaded and staged")
    folder = make_folder()
    def choose_folder():
        driver.find_element(By.ID, "upload-folder").send_keys(folder)
        wait_for(driver, lambda d: "Folder Level Pack: 3 files" in (text_of(d, "upload-chosen") or ""),
                 "the folder to be chosen")
    stage(driver, "1.0", choose_folder)
    driver.save_screenshot(os.path.join(SHOTS, "console-staged.png"))

    step("publish 1.0 and find it in /v1/products")
    click_in_row(driver, "1.0", "publish")
    confirm(driver, "will get version 1.0")
    wait_for(driver, lambda d: row_state(d, "1.0") == "published", "1.0 to be published")
    wait_for(driver, lambda d: current_versions(PRODUCT) == ["1.0"], "1.0 in /v1/products")

    step("an archive is uploaded through a cut connection and a reload")
    archive = make_archive("level-2.0.zip", 24, 11)
    version_field = driver.find_element(By.ID, "upload-version")
    version_field.clear()
    version_field.send_keys("2.0")
    driver.find_element(By.ID, "upload-archive").send_keys(archive)
    driver.set_network_conditions(offline=False, latency=5, download_throughput=50 << 20, upload_throughput=2 << 20)
    driver.find_element(By.ID, "upload-start").click()
    # The progress bar still shows 1.0's finished upload, so the sign that this one is under way is the status line
    # that only its progress writes. A loaded machine may take minutes to get there: the waits only bound a failure.
    wait_for(driver, lambda d: (text_of(d, "upload-status") or "").startswith("Uploading: "),
             "the upload to be under way", 600)
    wait_for(driver, lambda d: (text_of(d, "upload-rate") or "").endswith("/s") and text_of(d, "upload-left") != "—",
             "a rate and a time left", 600)
    driver.save_screenshot(os.path.join(SHOTS, "console-upload.png"))
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    wait_for(driver, lambda d: "Connection lost" in (text_of(d, "upload-status") or ""), "the cut to be seen", 600)
    driver.set_network_conditions(offline=False, latency=5, download_throughput=50 << 20, upload_throughput=2 << 20)
    wait_for(driver, lambda d: d.execute_script("return document.getElementById('upload-progress').value") > 0.4,
             "the upload to go on after the cut", 600)
    driver.refresh()
    driver.delete_network_conditions()
    wait_for(driver, lambda d: visible(d, "publisher"), "still signed in after the reload")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#product-list button[data-product="%s"]' % PRODUCT),
             "the product list")
    driver.find_element(By.CSS_SELECTOR, '#product-list button[data-product="%s"]' % PRODUCT).click()
    wait_for(driver, lambda d: visible(d, "upload-resumable"), "the unfinished upload to be offered")
    check("level-2.0.zip" in text_of(driver, "upload-resumable"), "it names the file")
    stage(driver, "2.0", lambda: driver.find_element(By.ID, "upload-archive").send_keys(archive))
    resumed = driver.execute_script("return document.getElementById('upload-progress').dataset.resumedFrom")
    check(resumed is not None and int(resumed) > 0, "the upload went on from where it was: %r" % resumed)
    check(not visible(driver, "upload-resumable"), "no unfinished upload is left")

    step("publish 2.0, then roll back to 1.0")
    click_in_row(driver, "2.0", "publish")
    confirm(driver, "Buyers who hold 1.0 are offered the update")
    wait_for(driver, lambda d: current_versions(PRODUCT) == ["2.0"], "2.0 in /v1/products")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#versions tr[data-version="1.0"] button.rollback'),
             "1.0 to offer a roll back")
    wait_for(driver, lambda d: "delta" in (d.execute_script(
        "const c = document.querySelector('#versions tr[data-version=\"1.0\"] td.delta'); return c && c.textContent;")
        or "") or "full" in (d.execute_script(
        "const c = document.querySelector('#versions tr[data-version=\"1.0\"] td.delta'); return c && c.textContent;")
        or ""), "the update size from 1.0")
    driver.save_screenshot(os.path.join(SHOTS, "console-products.png"))
    click_in_row(driver, "1.0", "rollback")
    confirm(driver, "will get version 1.0")
    wait_for(driver, lambda d: current_versions(PRODUCT) == ["1.0"], "1.0 back in /v1/products")

    step("a version dropped as an archive is scheduled: published now, offered from a day ahead")
    stage(driver, "2.1", lambda: drop_archive(driver, "level-2.1.zip"))
    check(row_state(driver, "2.1") == "staged", "2.1 is staged")
    click_in_row(driver, "2.1", "publish")
    said = confirm(driver, "will get version 2.1")
    check(" from " in said, "the confirmation names the time: %r" % said)
    wait_for(driver, lambda d: "scheduled" in (d.execute_script(
        "const c = document.querySelector('#versions tr[data-version=\"2.1\"] td.state'); return c && c.textContent;")
        or ""), "2.1 to show as scheduled")
    check(current_versions(PRODUCT) == ["1.0"], "buyers still get 1.0 until the time comes")

    step("a version never published is deleted")
    stage(driver, "3.0", lambda: driver.find_element(By.ID, "upload-archive").send_keys(
        make_archive("level-3.0.zip", 1, 12)))
    click_in_row(driver, "3.0", "delete")
    confirm(driver, "never published")
    wait_for(driver, lambda d: row_state(d, "3.0") is None, "3.0 to be gone")
    check(current_versions(PRODUCT) == ["1.0"], "buyers still get 1.0")

    step("a version rolled out to 10%, halted, then rolled back; another published to beta and promoted")
    driver.execute_script("document.getElementById('upload-schedule').value = '';")
    stage(driver, "2.5", lambda: driver.find_element(By.ID, "upload-archive").send_keys(
        make_archive("level-2.5.zip", 1, 13)))
    field = driver.find_element(By.CSS_SELECTOR, '#versions tr[data-version="2.5"] input.percent')
    field.clear()
    field.send_keys("10")
    click_in_row(driver, "2.5", "rollout")
    confirm(driver, "10% of the buyers")
    wait_for(driver, lambda d: "rollout 10%" in (state_text(d, "2.5") or ""), "2.5 to show its rollout")
    check(release(PRODUCT, "2.5") == {"channel": "production", "rollout": 10, "halted": False},
          "the API holds the rollout: %r" % release(PRODUCT, "2.5"))
    check(current_versions(PRODUCT) == ["1.0"], "the list still shows what everyone gets")
    click_in_row(driver, "2.5", "halt")
    confirm(driver, "Nobody new gets version 2.5")
    wait_for(driver, lambda d: "halted" in (state_text(d, "2.5") or ""), "2.5 to show as halted")
    check(release(PRODUCT, "2.5")["halted"] is True, "the API holds the halt")
    click_in_row(driver, "2.5", "rollback")
    confirm(driver, "instead of 2.5")
    wait_for(driver, lambda d: row_state(d, "2.5") == "superseded", "2.5 to be rolled back")
    check(current_versions(PRODUCT) == ["1.0"], "buyers get 1.0")
    stage(driver, "2.6", lambda: driver.find_element(By.ID, "upload-archive").send_keys(
        make_archive("level-2.6.zip", 1, 14)))
    click_in_row(driver, "2.6", "beta")
    confirm(driver, "Test purchases")
    wait_for(driver, lambda d: "beta" in (state_text(d, "2.6") or ""), "2.6 to show as beta")
    check(current_versions(PRODUCT) == ["1.0"], "production buyers keep 1.0")
    click_in_row(driver, "2.6", "promote")
    confirm(driver, "Every buyer")
    wait_for(driver, lambda d: current_versions(PRODUCT) == ["2.6"], "2.6 promoted in /v1/products")
    # The console draws the product anew once the promotion is answered: wait for that before using the view.
    wait_for(driver, lambda d: "beta" not in (state_text(d, "2.6") or "beta"), "the console to show 2.6 promoted")

    step("the type of a product with versions is locked")
    click(driver, By.CSS_SELECTOR, "#product-view details summary")
    Select(driver.find_element(By.ID, "product-type")).select_by_value("consumable")
    driver.find_element(By.ID, "product-save").click()
    wait_for(driver, lambda d: "product-type-locked" in (text_of(d, "product-error") or ""), "the lock's error")
    check(catalog()[PRODUCT]["type"] == "nonConsumable", "the type did not change")

    step("sign out")
    driver.find_element(By.ID, "sign-out").click()
    wait_for(driver, lambda d: visible(d, "sign-in"), "the sign-in form")
    check(driver.execute_script("return sessionStorage.length") == 0, "the key is forgotten")
    check(not visible(driver, "publisher"), "the products are hidden")
    check(text_of(driver, "product-view") == "", "nothing of the product is left")
    time.sleep(2)  # longer than the page's poll of version jobs: nothing asks the API after signing out
    check(text_of(driver, "notice") == "Signed out", "the notice says %r" % text_of(driver, "notice"))

    step("a key scoped to the product sees that product alone")
    sign_in(driver, SCOPED)
    wait_for(driver, lambda d: visible(d, "publisher"), "the publisher's page")
    wait_for(driver, lambda d: text_of(d, "product-title") == "Level 3: The <Frozen> Lake", "the product")
    listed = driver.execute_script(
        "return Array.from(document.querySelectorAll('#product-list button[data-product]'), (b) => b.dataset.product);")
    check(listed == [PRODUCT], "the scoped key lists %r" % listed)
    check(len(catalog()) > 1, "the catalog has other products the key does not see")
    driver.find_element(By.ID, "sign-out").click()
    wait_for(driver, lambda d: visible(d, "sign-in"), "the sign-in form")

    step("the operator reads the reports")
    sign_in(driver, ADMIN)
    wait_for(driver, lambda d: visible(d, "operator"), "the operator's page")
    wait_for(driver, lambda d: d.find_elements(By.ID, "report-empty") or d.find_elements(By.ID, "report-table"),
             "the deliveries report")
    for report in ["outbox", "irregular"]:
        driver.find_element(By.CSS_SELECTOR, '#operator-tabs button[data-report="%s"]' % report).click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "report-empty") or d.find_elements(By.ID, "report-table"),
                 "the %s report" % report, 30)
    driver.find_element(By.ID, "sign-out").click()
    wait_for(driver, lambda d: visible(d, "sign-in"), "the sign-in form")


if __name__ == "__main__":
    main()
