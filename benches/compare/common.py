"""Shared by the whole-process scripts of benches/compare (`convert`, `targets`): where the
corpus and the binaries are, and how a command is timed.

- Timing: `alternate` runs its commands interleaved (ROUNDS rounds, each running every
  command RUNS times in turn) and keeps each command's median wall time, so that a drift of
  the machine over the measurement falls on every command alike.
- Fresh outputs: a `Fresh` in a command stands for a path that does not exist, a new one
  for each run, removed after the run (outside the timed part).
- The floor: what any converter of a file into an N-byte output pays besides its own work,
  the process start of a do-nothing `idmodel --version` plus the input read and the N bytes
  written as idmodel writes them, by `floor_io` (floor_io.rs) in a fresh process, timed
  with and without that work and the difference kept (`floor`).
- Memory: `peak_rss` runs one command and returns its own peak RSS (through GNU time:
  see there why not `os.wait4` on the child of this script).
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(ROOT))
CORPUS = os.environ.get("IDMODEL_CORPUS", os.path.join(REPO, "..", "shared", "corpus"))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
FILES = ["mdl/ogre.mdl", "mdl/player.mdl", "md2/faerie.md2", "md3/oa_kyonshi/upper.md3",
         "md3/trem_level1_nonseg.md3", "md5/Bob.md5mesh", "md5/unv_human_light_body.md5mesh"]
BATCH_FOLDERS = ("mdl", "md2", "md3", "md5")
MODEL_EXTENSIONS = (".mdl", ".md2", ".md3", ".md5mesh")


def env_int(name, default):
    return int(os.environ.get(name, str(default)))


def idmodel_bin():
    """IDMODEL_BIN (another build of the command, for example the static one of
    ci/static-build.sh; its own `--version` is then the floor's process start), else a
    release build of idmodel-cli."""
    idm = os.environ.get("IDMODEL_BIN")
    if not idm:
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "idmodel-cli"], cwd=REPO, check=True)
        idm = os.path.join(TARGET, "release", "idmodel")
    return os.path.abspath(idm)


def floor_io_bin():
    """FLOOR_IO (a built floor_io), else a release build of the `floor_io` example."""
    path = os.environ.get("FLOOR_IO")
    if path:
        return os.path.abspath(path)
    built = subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "floor_io"], cwd=REPO)
    if built.returncode == 0:
        return os.path.join(TARGET, "release", "examples", "floor_io")
    # floor_io uses std alone: when the package does not build (a change under way
    # elsewhere in the workspace), build the program by itself.
    path = os.path.join(TARGET, "compare", "floor_io")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    print("cargo could not build the floor_io example; building it with rustc alone", file=sys.stderr)
    subprocess.run(["rustc", "--edition", "2024", "-C", "opt-level=3", "-o", path,
                    os.path.join(ROOT, "floor_io.rs")], check=True)
    return path


def batch_files(corpus=CORPUS, folders=BATCH_FOLDERS):
    """The model files under the corpus format folders, as a folder conversion finds them."""
    return [os.path.join(d, n) for sub in folders
            for d, _, ns in sorted(os.walk(os.path.join(corpus, sub))) for n in sorted(ns)
            if n.lower().endswith(MODEL_EXTENSIONS)]


class Fresh:
    """In a command: a path that does not exist yet, a new one for each run, removed after."""

    def __init__(self, folder, suffix=".glb"):
        self.folder, self.suffix, self.n = folder, suffix, 0

    def new(self):
        self.n += 1
        return os.path.join(self.folder, f"fresh-{id(self):x}-{self.n}{self.suffix}")


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.remove(path)


def _resolve(cmd):
    """The command with each `Fresh` replaced by a new path, and those paths."""
    made = []
    out = []
    for a in cmd:
        if isinstance(a, Fresh):
            p = a.new()
            made.append(p)
            out.append(p)
        else:
            out.append(a)
    return out, made


def wall(cmd):
    """Wall time of one run of `cmd` (output discarded); its `Fresh` paths removed after."""
    cmd, made = _resolve(cmd)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    t = time.perf_counter() - t
    for p in made:
        remove(p)
    return t


def alternate(cmds, rounds, runs):
    """Median wall time of each command, runs interleaved."""
    times = [[] for _ in cmds]
    for _ in range(rounds):
        for i, c in enumerate(cmds):
            for _ in range(runs):
                times[i].append(wall(c))
    return [statistics.median(t) for t in times]


def _gnu_time():
    path = shutil.which("time") or "/usr/bin/time"
    try:
        v = subprocess.run([path, "--version"], capture_output=True, text=True)
    except OSError:
        return None
    return path if "GNU" in v.stdout + v.stderr else None


GNU_TIME = _gnu_time()


def peak_rss(cmd):
    """(exit code, peak RSS in bytes, exact) of one run of `cmd`: the child's own peak.

    A child of this script cannot be measured by `os.wait4` on its pid: its ru_maxrss is
    at least this script's own RSS (a forked or vforked child starts with the parent's
    memory, and exec keeps the high-water mark), 14+ MiB. GNU time (`time` package)
    forks the command from its own ~1.5 MiB process and reports its ru_maxrss: exact.
    Without it, `os.wait4` here: an upper bound (exact = False). Exit code: negative
    for a signal."""
    if GNU_TIME:
        fd, report = tempfile.mkstemp(prefix="idmodel-rss-")
        os.close(fd)
        try:
            subprocess.run([GNU_TIME, "-f", "%x %M", "-o", report, *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            with open(report) as f:
                lines = f.read().splitlines()
        finally:
            os.remove(report)
        rc, kib = (int(v) for v in lines[-1].split())
        signal = next((l for l in lines if l.startswith("Command terminated by signal")), None)
        if signal:
            rc = -int(signal.split()[-1])
        return rc, kib * 1024, True
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_maxrss * 1024, False  # Linux: KiB


def floor(start, io_none, io_work):
    """The floor: process start plus floor_io's work (its run with arguments less its run
    without)."""
    return start + max(io_work - io_none, 0.0)


def ms(s):
    return f"{s * 1e3:.1f} ms"


def machine():
    """'N cores, CPU model' of this machine."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{n} cores (nproc), {model}"
