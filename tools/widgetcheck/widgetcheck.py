#!/usr/bin/python3
"""widgetcheck: the live exploration of notebook 13 in a real browser.

It starts a Jupyter notebook server with the GoNB kernel on a copy of the notebook (the
repository's file is never written), opens it in headless Chromium driven by Selenium, runs its
cells one by one, and while the OCR exploration trains:

  1. self-test: it breaks the page (the browser drops every value a widget sends to the kernel,
     so that the slider moves on the page and nothing else happens), moves the lambda slider and
     requires the check below to REJECT the page while the run goes on;
  2. it repairs the page, moves the lambda slider again and requires that the run's trace
     records the change (the exploration's chart block carries the run's lambda and the marks of
     its trace as data attributes, the table of marks lists it with the slider's value) and that
     the chart redraws (its image changes and it draws one more mark than before the move);
  3. it presses Pause and requires the run to pause, presses it again (Continue) and requires
     the run to go on;
  4. it presses the Stop button and requires the cell to end within a minute (else it ends the
     cell's program with SIGQUIT and saves its goroutines) and the final summary, built from
     the trace, to list the mark with the slider's value.

With --yeast it then runs the fork cell and the Yeast exploration and does steps 2 and 4 with the
rho slider of the soft-constraint run.

Exit status: 0 the checks passed, 1 a check failed, 2 the check could not be made (no server,
no browser, the notebook failed to run).
"""

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError as e:  # pragma: no cover
    print(f"widgetcheck: selenium is missing ({e}): apt-get install python3-selenium chromium-driver", file=sys.stderr)
    sys.exit(2)


# The budgets of the notebook's explorations, and what the copy runs instead.
BUDGETS = ("ssvmnb.Exploration{Passes: 150,", "ssvmnb.Exploration{Passes: 30,")
UNBOUNDED = "ssvmnb.Exploration{Passes: 1e6,"


class CheckFailed(Exception):
    """A check failed: exit status 1."""


class CannotCheck(Exception):
    """The check could not be made: exit status 2."""


T0 = time.time()


def log(msg):
    print(f"widgetcheck [{time.time() - T0:6.1f} s] {msg}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(jupyter, folder, port, logfile):
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
    args = [jupyter, "notebook", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
            f"--notebook-dir={folder}", "--NotebookApp.token=", "--NotebookApp.password=",
            "--NotebookApp.open_browser=False"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    proc = subprocess.Popen(args, env=env, stdout=logfile, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise CannotCheck(f"the Jupyter server exited with status {proc.returncode} (see {logfile.name})")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise CannotCheck(f"the Jupyter server did not answer on port {port} within 60 s (see {logfile.name})")


def wait(what, fn, timeout, every=0.25):
    """Polls fn until it returns a true value, which it returns; raises CheckFailed on timeout."""
    deadline = time.time() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.time() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


# JavaScript helpers run in the page (classic Jupyter notebook).
JS_READY = """
const nb = globalThis.Jupyter && Jupyter.notebook;
return !!(nb && nb.kernel && nb.kernel.is_connected() && nb.get_cells().length > 0);
"""
JS_EXECUTE = "Jupyter.notebook.get_cell(arguments[0]).execute();"
JS_CELL_STATE = """
const c = Jupyter.notebook.get_cell(arguments[0]);
const outs = (c.output_area && c.output_area.outputs) || [];
const errors = outs.filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue);
const text = outs.map(o => o.text || (o.data && o.data['text/plain']) || '').join('');
return {prompt: c.input_prompt_number === undefined ? null : c.input_prompt_number, errors: errors, text: text};
"""
# The state of the exploration's chart block and widgets in the output of cell arguments[0].
JS_EXPLORE = """
const area = Jupyter.notebook.get_cell(arguments[0]).output_area.element[0];
const v = area.querySelector('.fwstruct-explore');
const s = area.querySelector('.fwstruct-explore-summary');
const rows = el => el ? Array.from(el.querySelectorAll('tr.fwstruct-mark')).map(r => ({
    lambda: parseFloat(r.dataset.lambda), rho: r.dataset.rho === undefined ? null : parseFloat(r.dataset.rho),
    text: Array.from(r.cells).map(c => c.textContent).join(' | ')})) : [];
const img = v && v.querySelector('img');
const ctl = {};
for (const c of area.querySelectorAll('.fwstruct-explore-controls .fwstruct-control')) {
    const input = c.querySelector('input[type=range]');
    ctl[c.dataset.control] = {values: c.dataset.values ? JSON.parse(c.dataset.values) : null,
                              pos: input ? parseInt(input.value) : null, slider: !!input,
                              button: !!c.querySelector('button')};
}
return {
    view: v ? {state: v.dataset.state, pass: parseFloat(v.dataset.pass), lambda: parseFloat(v.dataset.lambda),
               rho: v.dataset.rho === undefined ? null : parseFloat(v.dataset.rho),
               marks: parseInt(v.dataset.marks), rows: rows(v), img: img ? img.src : ''} : null,
    summary: s ? {lambda: parseFloat(s.dataset.lambda), marks: parseInt(s.dataset.marks), rows: rows(s),
                  text: s.textContent} : null,
    controls: ctl,
};
"""
JS_SLIDER = """
const area = Jupyter.notebook.get_cell(arguments[0]).output_area.element[0];
return area.querySelector('.fwstruct-explore-controls .fwstruct-control[data-control="' + arguments[1] + '"] input[type=range]');
"""
JS_BUTTON = """
const area = Jupyter.notebook.get_cell(arguments[0]).output_area.element[0];
return area.querySelector('.fwstruct-explore-controls .fwstruct-control[data-control="' + arguments[1] + '"] button');
"""
# The broken page of the self-test: the values the widgets send never reach the kernel (the
# protocol's own messages, addresses starting with '#', still do).
JS_BREAK = """
const c = globalThis.gonb_comm;
if (!c) { return false; }
if (!c._widgetcheck_send) { c._widgetcheck_send = c.send; }
c.send = function(address, value) { if (String(address).startsWith('#')) { return this._widgetcheck_send(address, value); } };
return true;
"""
JS_REPAIR = """
const c = globalThis.gonb_comm;
if (c && c._widgetcheck_send) { c.send = c._widgetcheck_send; delete c._widgetcheck_send; }
return true;
"""


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(abs(a), abs(b))


class Page:
    def __init__(self, driver, cells, server):
        self.d = driver
        self.cells = cells
        self.server = server  # the pid of the Jupyter server (its cells' programs are its descendants)
        self.running = None  # the cell started last

    def explore(self, cell):
        return self.d.execute_script(JS_EXPLORE, cell)

    def state(self, cell):
        return self.d.execute_script(JS_CELL_STATE, cell)

    def run(self, cell, timeout):
        """Runs a cell to its end and fails on an error output."""
        self.start(cell)
        self.finish(cell, timeout)

    def start(self, cell):
        log(f"running cell {cell}: {first_line(self.cells[cell])}")
        self.d.execute_script(JS_EXECUTE, cell)
        self.running = cell

    def finish(self, cell, timeout):
        st = wait(f"cell {cell} to finish", lambda: self.done(cell), timeout)
        if st["errors"]:
            raise CannotCheck(f"cell {cell} failed: {st['errors']}\n{st['text'][-2000:]}")

    def done(self, cell):
        st = self.state(cell)
        return st if isinstance(st["prompt"], int) else None

    def move(self, cell, control, key, times=1):
        """Moves a slider by the keyboard, as a user does; returns the value of its new position."""
        el = self.d.execute_script(JS_SLIDER, cell, control)
        if el is None:
            raise CheckFailed(f"cell {cell}: no {control} slider")
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus();", el)
        for _ in range(times):
            el.send_keys(key)
        ctl = self.explore(cell)["controls"][control]
        return ctl["values"][ctl["pos"]]

    def screenshot(self, cell, path):
        """Saves a screenshot of the page with the cell's widgets and chart in view."""
        self.d.execute_script("Jupyter.notebook.get_cell(arguments[0]).output_area.element[0].scrollIntoView();", cell)
        self.d.save_screenshot(path)
        log(f"screenshot: {path}")

    def press(self, cell, button):
        el = self.d.execute_script(JS_BUTTON, cell, button)
        if el is None:
            raise CheckFailed(f"cell {cell}: no {button} button")
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)
        el.click()


def first_line(src):
    for line in src.splitlines():
        if line.strip() and not line.startswith("%%"):
            return line.strip()[:90]
    return ""


def at(rows, control, value):
    """The marks of the trace (rows of a marks table) whose point has value of control."""
    return [r for r in rows if close(r["lambda" if control == "lambda" else "rho"], value)]


def recorded(view, control, value, before):
    """Whether the chart block shows more marks of the trace at value of control than before."""
    return view is not None and len(at(view["rows"], control, value)) > before


def check_move(page, cell, control, key, times, broken=False, timeout=90):
    """Moves the slider and checks that the trace records it and the chart redraws; with
    broken, it breaks the page first and requires the same check to fail."""
    before = wait("the exploration's chart", lambda: page.explore(cell)["view"], 60)
    if broken and not page.d.execute_script(JS_BREAK):
        raise CannotCheck("no gonb_comm in the page to break")
    value = page.move(cell, control, key, times)
    seen = len(at(before["rows"], control, value))
    log(f"cell {cell}: {control} slider moved to {value:g}{' (page broken)' if broken else ''}; "
        f"the run at pass {before['pass']:g}, {before['marks']} marks")
    if broken:
        # A working page has its change applied within a few block steps; give the broken one
        # several passes and live updates, and require the run to go on meanwhile.
        t_end = time.time() + 8
        while time.time() < t_end:
            v = page.explore(cell)["view"]
            if recorded(v, control, value, seen):
                raise CheckFailed(f"self-test: the {control} change reached the run although the page dropped it: the check is broken")
            time.sleep(0.25)
        v = page.explore(cell)["view"]
        if v is None or v["state"] != "running" or not v["pass"] > before["pass"] or v["img"] == before["img"]:
            raise CannotCheck(f"self-test inconclusive: the run did not go on while the page was broken ({v and v['state']}, pass {v and v['pass']})")
        page.d.execute_script(JS_REPAIR)
        log(f"self-test: the {control} move on the broken page was rejected (the run went on from pass "
            f"{before['pass']:g} to {v['pass']:g} without it); page repaired")
        return value
    v = wait(f"the trace to record {control} = {value:g}",
             lambda: (lambda v: v if recorded(v, control, value, seen) else None)(page.explore(cell)["view"]), timeout)
    if not v["marks"] > before["marks"]:
        raise CheckFailed(f"the chart draws {v['marks']} marks after the move, {before['marks']} before")
    if v["img"] == before["img"] or not v["img"].startswith("data:image/png;base64,"):
        raise CheckFailed("the chart did not redraw after the move")
    row = at(v["rows"], control, value)[-1]
    log(f"cell {cell}: the trace records {control} = {value:g} ({row['text'].strip()}); the chart redrew "
        f"with {v['marks']} marks (was {before['marks']}), at pass {v['pass']:g}")
    return value


# How long a pressed Stop button may take to end the exploration's cell: the run stops at its
# next block step, is evaluated and saved, and the cell's program exits.
STOP_TIMEOUT = 60


def cell_programs(server):
    """The pids of the programs GoNB runs for cells (/tmp/gonb_ID/gonb_ID) under the Jupyter
    server of pid server (its kernel's children): never another server's."""
    parent, programs = {}, []
    for d in glob.glob("/proc/[0-9]*"):
        pid = int(os.path.basename(d))
        try:
            with open(os.path.join(d, "stat")) as f:
                parent[pid] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(os.path.join(d, "cmdline"), "rb") as f:
                exe = f.read().split(b"\0")[0].decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        parts = exe.split("/")
        if len(parts) == 4 and parts[1] == "tmp" and parts[2].startswith("gonb_") and parts[3] == parts[2]:
            programs.append(pid)

    def under(pid):
        while pid > 1:
            pid = parent.get(pid, 0)
            if pid == server:
                return True
        return False
    return [pid for pid in programs if under(pid)]


def dump_stuck_cell(page, cell, out):
    """Ends the cell's program with SIGQUIT (Go prints every goroutine's stack) and saves the
    cell's whole output; returns the file."""
    for pid in cell_programs(page.server):
        try:
            os.kill(pid, signal.SIGQUIT)
        except OSError:
            pass
    try:
        wait(f"cell {cell} to end after SIGQUIT", lambda: page.done(cell), 30)
    except CheckFailed:
        pass
    path = os.path.join(out, f"cell-{cell}.txt")
    with open(path, "w") as f:
        f.write(page.state(cell)["text"])
    return path


# How long the widgets may take to appear once the exploration's chart is shown (the program
# probes the front end for up to 10 s, then builds them while the run trains).
WIDGETS_TIMEOUT = 60


def wait_widgets(page, cell, names, timeout):
    """Waits for the exploration's chart (the cell compiles first), then for its widgets."""
    wait(f"the exploration's chart in cell {cell}", lambda: page.explore(cell)["view"], timeout)
    wait(f"the widgets {', '.join(names)} of cell {cell} (the chart is shown)",
         lambda: all(k in page.explore(cell)["controls"] for k in names), WIDGETS_TIMEOUT)


def check_pause(page, cell, timeout=30):
    """Presses Pause, requires the run to pause (and stay at its pass), presses the button again
    (now Continue) and requires the run to go on."""
    page.press(cell, "pause")
    v = wait(f"cell {cell} to pause", lambda: (lambda v: v if v and v["state"] == "paused" else None)(page.explore(cell)["view"]), timeout)
    time.sleep(1)
    w = page.explore(cell)["view"]
    if w["state"] != "paused" or w["pass"] != v["pass"]:
        raise CheckFailed(f"cell {cell}: the run went on while paused (pass {v['pass']:g}, then {w['state']} at {w['pass']:g})")
    page.press(cell, "pause")
    w = wait(f"cell {cell} to continue", lambda: (lambda w: w if w and w["state"] == "running" and w["pass"] > v["pass"] else None)(page.explore(cell)["view"]), timeout)
    log(f"cell {cell}: paused at pass {v['pass']:g}, continued to {w['pass']:g}")


def check_summary(page, cell, control, value, out):
    page.press(cell, "stop")
    try:
        wait(f"cell {cell} to finish after the stop press", lambda: page.done(cell), STOP_TIMEOUT)
    except CheckFailed:
        v = page.explore(cell)["view"]
        raise CheckFailed(f"cell {cell}: the stop press did not end the exploration within {STOP_TIMEOUT} s "
                          f"(the run at pass {v and v['pass']}, state {v and v['state']})")
    page.finish(cell, 1)
    s = page.explore(cell)["summary"]
    if s is None:
        raise CheckFailed(f"cell {cell}: no summary after the exploration")
    if not at(s["rows"], control, value):
        raise CheckFailed(f"cell {cell}: the final marks of the trace do not list {control} = {value:g}: {[r['text'] for r in s['rows']]}")
    if page.explore(cell)["controls"]:
        raise CheckFailed(f"cell {cell}: the widgets are still shown after the exploration")
    log(f"cell {cell}: stopped; the summary from the trace lists {control} = {value:g} among {s['marks']} marks")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notebook", required=True)
    ap.add_argument("--out", required=True, help="folder for the copy of the notebook, logs and screenshots")
    ap.add_argument("--jupyter", default="/usr/bin/jupyter")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--yeast", action="store_true", help="also check the Yeast exploration (needs the yeast data)")
    ap.add_argument("--cell-timeout", type=float, default=600, help="seconds a cell may run (the first compiles fwstruct)")
    a = ap.parse_args()

    os.makedirs(a.out, exist_ok=True)
    for old in glob.glob(os.path.join(a.out, "nb-*")):  # the copies of earlier checks
        shutil.rmtree(old, ignore_errors=True)
    work = tempfile.mkdtemp(prefix="nb-", dir=os.path.abspath(a.out))
    shutil.copy(os.path.join(os.path.dirname(a.notebook), "setup.sh"), work)
    name = os.path.basename(a.notebook)
    with open(a.notebook) as f:
        nb = json.load(f)
    # The copy's explorations have no budget but the Stop button (pressed below), so that the
    # check does not depend on how fast the machine trains.
    for c in nb["cells"]:
        src = "".join(c["source"])
        for budget in BUDGETS:
            if budget in src:
                src = src.replace(budget, UNBOUNDED)
                c["source"] = src.splitlines(True)
    with open(os.path.join(work, name), "w") as f:
        json.dump(nb, f)
    cells = ["".join(c["source"]) for c in nb["cells"]]

    def find(*needles):
        for i, src in enumerate(cells):
            if src.lstrip().startswith(("%%", "//", "!", "import")) and all(n in src for n in needles):
                return i
        raise CannotCheck(f"no cell of {name} holds {needles}")

    setup, imports, forget = find("setup.sh"), find("import (", "ssvmnb.Notebook"), find("ForgetAll")
    ocr, fork, yeast = find("t.Explore(", "ocrScript"), find("Resume(\"ocr fork\")"), find("t.Explore(", "yeastScript")
    for c in (ocr, yeast):
        if UNBOUNDED not in cells[c]:
            raise CannotCheck(f"cell {c} of {name} has none of the budgets {BUDGETS}: update tools/widgetcheck")

    port = free_port()
    server_log = open(os.path.join(a.out, "jupyter.log"), "w")
    server = start_server(a.jupyter, work, port, server_log)
    log(f"Jupyter notebook server on port {port}, serving a copy of {name} in {work}")
    opts = webdriver.ChromeOptions()
    opts.binary_location = a.chromium
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-', dir=work)}"]:
        opts.add_argument(arg)
    driver, page = None, None
    try:
        try:
            driver = webdriver.Chrome(service=Service(a.chromedriver), options=opts)
        except Exception as e:
            raise CannotCheck(f"could not start Chromium through {a.chromedriver}: {e}")
        driver.set_script_timeout(30)
        driver.get(f"http://127.0.0.1:{port}/notebooks/{name}")
        wait("the notebook and its GoNB kernel", lambda: driver.execute_script(JS_READY), 120)
        driver.execute_script("Jupyter.notebook.set_autosave_interval(0);")
        page = Page(driver, cells, server.pid)
        for c in (setup, imports, forget):
            page.run(c, a.cell_timeout)

        page.start(ocr)
        wait_widgets(page, ocr, ("lambda", "stop", "pause", "sampling", "step"), a.cell_timeout)
        log(f"cell {ocr}: widgets shown: {', '.join(page.explore(ocr)['controls'])}")
        check_move(page, ocr, "lambda", Keys.ARROW_LEFT, 1, broken=True)
        value = check_move(page, ocr, "lambda", Keys.ARROW_LEFT, 1)
        page.screenshot(ocr, os.path.join(a.out, "ocr.png"))
        check_pause(page, ocr)
        check_summary(page, ocr, "lambda", value, a.out)

        if a.yeast:
            page.run(fork, a.cell_timeout)
            page.start(yeast)
            wait_widgets(page, yeast, ("rho", "stop"), a.cell_timeout)
            log(f"cell {yeast}: widgets shown: {', '.join(page.explore(yeast)['controls'])}")
            value = check_move(page, yeast, "rho", Keys.ARROW_RIGHT, 1)
            page.screenshot(yeast, os.path.join(a.out, "yeast.png"))
            check_summary(page, yeast, "rho", value, a.out)
        log("passed")
        return 0
    except (CheckFailed, CannotCheck) as e:
        if page is not None and page.running is not None and not page.done(page.running):
            print(f"widgetcheck: cell {page.running} still runs: the goroutines of its program, ended with SIGQUIT: "
                  f"{dump_stuck_cell(page, page.running, a.out)}", file=sys.stderr)
        if driver is not None:
            try:
                shot = os.path.join(a.out, "failure.png")
                driver.save_screenshot(shot)
                print(f"widgetcheck: screenshot of the page: {shot}", file=sys.stderr)
            except Exception:
                pass
        print(f"widgetcheck: {'FAILED' if isinstance(e, CheckFailed) else 'could not check'}: {e}", file=sys.stderr)
        return 1 if isinstance(e, CheckFailed) else 2
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        server_log.close()


if __name__ == "__main__":
    sys.exit(main())
