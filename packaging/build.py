"""Build ContextDesk's packages from a checkout.

    python3 packaging/build.py linux [--venv DIR] [--no-tarball]
        A self-contained bundle (PyInstaller, packaging/pyinstaller/contextdesk.spec) with Qt,
        onnxruntime, llama.cpp and both models, packed as dist/contextdesk_<version>_amd64.deb and
        dist/contextdesk-<version>-linux-x86_64.tar.gz. Check it with `python3 packaging/check.py linux`.
    python3 packaging/build.py macos          (on macOS)
        The same bundle as dist/ContextDesk-<version>-macos-<arch>.dmg holding ContextDesk.app.
    python3 packaging/build.py windows        (on Windows, with Inno Setup 6)
        The same bundle and dist/ContextDesk-<version>-windows-x64-setup.exe
        (packaging/windows/contextdesk.iss).
    python3 packaging/build.py wheel [--out DIR]
        The wheel, checked to carry what a non-editable install needs (the default agent, the icon,
        the desktop entry, as data files under <prefix>/share).

Both run in the .venv that `python3 dev.py run` made (this script restarts itself with its Python):
the bundle is made of what is installed there, llama-cpp-python included, so nothing is compiled or
downloaded but PyInstaller itself (the `packaging` extra), installed into .venv on first use.
.github/workflows/installers.yml builds and smoke-tests all three; only Linux has been run on the
project's machines so far (docs/packaging.md says what has and has not been).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "packaging" / "pyinstaller" / "contextdesk.spec"
INNO_SCRIPT = REPO / "packaging" / "windows" / "contextdesk.iss"
INNO_DEFAULT = Path("C:/Program Files (x86)/Inno Setup 6/ISCC.exe")
DESKTOP_ENTRY = REPO / "packaging" / "linux" / "contextdesk.desktop"
ICON = REPO / "resources" / "icons" / "contextdesk.svg"
REQUIRED = (
    "agent_core/cli/main.py",
    "indexer/index.py",
    "desktop/app.py",
    "desktop/launcher.py",
    "data/share/contextdesk/default-agent/agent.yaml",
    "data/share/contextdesk/default-agent/rules/clear-answers.md",
    "data/share/contextdesk/default-agent/references/using-contextdesk.md",
    "data/share/contextdesk/icons/contextdesk.svg",
    "data/share/applications/contextdesk.desktop",
)
# What the bundle takes from the system rather than carrying (`ldd` over the bundle on Debian 12):
# glibc, OpenGL/EGL through libglvnd, the X connection and the Wayland client library. The
# Wayland platform also wants libwayland-cursor and -egl; X11 works without them.
DEB_DEPENDS = "libc6 (>= {glibc}), libgl1, libegl1, libxcb1, libwayland-client0"
DEB_RECOMMENDS = "libwayland-cursor0, libwayland-egl1"
INSTALL_DIR = "opt/contextdesk"


def project_version() -> str:
    with (REPO / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def packaging_requirements() -> list[str]:
    with (REPO / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["project"]["optional-dependencies"]["packaging"])


# -- the wheel ------------------------------------------------------------------------------------


def build_wheel(out: Path) -> Path:
    """Build the wheel into ``out``; returns its path.

    Raises:
        SystemExit: the build failed or the wheel lacks a required file.
    """
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.glob("contextdesk-*.whl"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--wheel-dir", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"the wheel did not build:\n{result.stdout}\n{result.stderr}")
    wheels = sorted(set(out.glob("contextdesk-*.whl")) - before) or sorted(out.glob("contextdesk-*.whl"))
    wheel = wheels[-1]
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    missing = [path for path in REQUIRED if not any(name.endswith(path) for name in names)]
    if missing:
        raise SystemExit(
            f"{wheel.name} lacks {', '.join(missing)}: check [tool.setuptools] in pyproject.toml"
        )
    return wheel


# -- the Linux bundle, .deb and tarball -----------------------------------------------------------


def build_bundle(work: Path) -> Path:
    """Run PyInstaller on the spec; returns the bundle's folder (``contextdesk/``)."""
    ensure_pyinstaller()
    dist = work / "dist"
    # The checkout first on the path: the .venv may hold an editable install of another checkout.
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm", "--log-level", "WARN"]
    command += ["--distpath", str(dist), "--workpath", str(work / "work")]
    if subprocess.run(command, cwd=REPO, env=env, check=False).returncode != 0:
        raise SystemExit("PyInstaller failed (its messages are above)")
    bundle = dist / "contextdesk"
    strip_interpreter(bundle)
    return bundle


def strip_interpreter(bundle: Path) -> None:
    """Strip the debug symbols of the Python interpreter's own libraries (16 MB of libpython alone).

    Only these: PyInstaller's strip option strips every library, which breaks numpy's OpenBLAS
    ("ELF load command address/offset not page-aligned"); the wheels' libraries come stripped.
    """
    strip = shutil.which("strip")
    if strip is None or not sys.platform.startswith("linux"):
        return
    internal = bundle / "_internal"
    libraries = [*internal.glob("libpython3*.so*"), *internal.glob("python3*/lib-dynload/*.so")]
    if libraries:
        subprocess.run([strip, "--strip-unneeded", *map(str, libraries)], check=True)


def ensure_pyinstaller() -> None:
    probe = subprocess.run([sys.executable, "-c", "import PyInstaller"], capture_output=True, check=False)
    if probe.returncode == 0:
        return
    print("Installing PyInstaller into the .venv (the packaging extra in pyproject.toml)", flush=True)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if subprocess.run([*pip, *packaging_requirements()], check=False).returncode != 0:
        raise SystemExit("PyInstaller did not install: see pip's message above")


def deb_architecture() -> str:
    machine = platform.machine()
    return {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine)


def glibc_version() -> str:
    """The build machine's glibc: the bundle needs at least that one."""
    _, _, version = (os.confstr("CS_GNU_LIBC_VERSION") or "glibc 2.36").partition(" ")
    return version


def control_file(version: str, installed_kib: int) -> str:
    return (
        "Package: contextdesk\n"
        f"Version: {version}\n"
        f"Architecture: {deb_architecture()}\n"
        "Maintainer: ContextDesk <contextdesk@users.noreply.github.com>\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {DEB_DEPENDS.format(glibc=glibc_version())}\n"
        f"Recommends: {DEB_RECOMMENDS}\n"
        "Section: utils\n"
        "Priority: optional\n"
        "Homepage: https://github.com/contextdesk/contextdesk\n"
        "Description: local desktop AI agent whose context you can see and control\n"
        " ContextDesk chats with local or hosted models using an agent folder of rules,\n"
        " references and tools. This package is self-contained: it carries its own\n"
        " Python, Qt and the offline models (SmolLM2-135M-Instruct, all-MiniLM-L6-v2),\n"
        " so it chats offline on first start. User data stays in ~/.local/share,\n"
        " ~/.cache and ~/.config; removing the package leaves it alone.\n"
    )


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def stage_deb(bundle: Path, root: Path, version: str) -> Path:
    """Lay out the .deb's tree under ``root``; returns it."""
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(bundle, root / INSTALL_DIR, symlinks=True)
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / "contextdesk").symlink_to(f"/{INSTALL_DIR}/contextdesk")
    applications = root / "usr" / "share" / "applications"
    applications.mkdir(parents=True)
    shutil.copy2(DESKTOP_ENTRY, applications / "contextdesk.desktop")
    icons = root / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps"
    icons.mkdir(parents=True)
    shutil.copy2(ICON, icons / "contextdesk.svg")
    debian = root / "DEBIAN"
    debian.mkdir()
    (debian / "control").write_text(control_file(version, folder_size(root) // 1024), encoding="utf-8")
    for path in [root, *root.rglob("*")]:  # dpkg-deb refuses group- or world-writable control files
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    return root


def build_deb(staged: Path, out: Path, version: str) -> Path:
    deb = out / f"contextdesk_{version}_{deb_architecture()}.deb"
    if shutil.which("dpkg-deb") is None:
        raise SystemExit("dpkg-deb is missing: install it (`apt-get install dpkg`) to build the .deb")
    # xz at level 6 gains nothing on the models and Qt over gzip but takes minutes on two cores.
    command = ["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(staged), str(deb)]
    if subprocess.run(command, check=False).returncode != 0:
        raise SystemExit("dpkg-deb failed (its message is above)")
    return deb


def build_tarball(bundle: Path, out: Path, version: str) -> Path:
    tarball = out / f"contextdesk-{version}-linux-{platform.machine()}.tar.gz"
    with tarfile.open(tarball, "w:gz", compresslevel=6) as archive:
        archive.add(bundle, arcname=f"contextdesk-{version}")
    return tarball


def build_linux(out: Path, *, tarball: bool) -> list[Path]:
    if not sys.platform.startswith("linux"):
        raise SystemExit("`build.py linux` runs on Linux; macOS and Windows: see docs/packaging.md")
    version = project_version()
    work = REPO / "build" / "linux"
    started = time.monotonic()
    bundle = build_bundle(work)
    print(f"bundle: {bundle} ({folder_size(bundle) / 1e6:.0f} MB) in {time.monotonic() - started:.0f} s")
    out.mkdir(parents=True, exist_ok=True)
    built = [build_deb(stage_deb(bundle, work / "deb-root", version), out, version)]
    if tarball:
        built.append(build_tarball(bundle, out, version))
    print(f"built in {time.monotonic() - started:.0f} s: " + ", ".join(str(path) for path in built))
    return built


# -- macOS and Windows (run by .github/workflows/installers.yml; not on the project's machines) --------


def build_macos(out: Path) -> list[Path]:
    """ContextDesk.app (from the spec's BUNDLE) in a compressed disk image with an Applications link."""
    if sys.platform != "darwin":
        raise SystemExit("`build.py macos` runs on macOS (hdiutil makes the .dmg)")
    version = project_version()
    work = REPO / "build" / "macos"
    app = build_bundle(work).with_name("ContextDesk.app")
    image = work / "dmg"
    if image.exists():
        shutil.rmtree(image)
    image.mkdir(parents=True)
    shutil.copytree(app, image / "ContextDesk.app", symlinks=True)
    (image / "Applications").symlink_to("/Applications")
    out.mkdir(parents=True, exist_ok=True)
    dmg = out / f"ContextDesk-{version}-macos-{platform.machine()}.dmg"
    command = ["hdiutil", "create", "-volname", "ContextDesk", "-srcfolder", str(image), "-ov"]
    subprocess.run([*command, "-format", "UDZO", str(dmg)], check=True)
    return [dmg]


def build_windows(out: Path) -> list[Path]:
    """The Inno Setup installer of the bundle (per-user by default; asks for all users if wanted)."""
    if os.name != "nt":
        raise SystemExit("`build.py windows` runs on Windows (Inno Setup makes the installer)")
    version = project_version()
    bundle = build_bundle(REPO / "build" / "windows")
    iscc = shutil.which("iscc") or (str(INNO_DEFAULT) if INNO_DEFAULT.exists() else None)
    if iscc is None:
        raise SystemExit("Inno Setup 6 is missing: install it (`choco install innosetup`)")
    out.mkdir(parents=True, exist_ok=True)
    defines = [f"/DAppVersion={version}", f"/DSourceDir={bundle}", f"/O{out}"]
    subprocess.run([iscc, *defines, str(INNO_SCRIPT)], check=True)
    return [out / f"ContextDesk-{version}-windows-x64-setup.exe"]


# -- running in the .venv -------------------------------------------------------------------------


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def in_venv(venv: Path) -> bool:
    return Path(sys.prefix).resolve() == venv.resolve()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("target", nargs="?", choices=("wheel", "linux", "macos", "windows"), default="wheel")
    parser.add_argument(
        "--out", type=Path, default=REPO / "dist", help="where the packages go (default dist/)"
    )
    parser.add_argument(
        "--venv", type=Path, default=REPO / ".venv", help="the environment to build from (default .venv)"
    )
    parser.add_argument("--no-tarball", action="store_true", help="linux: build the .deb only")
    args = parser.parse_args(argv)
    if not in_venv(args.venv):
        python = venv_python(args.venv)
        if not python.exists():
            print(f"{args.venv} does not exist: run `python3 dev.py run` first", file=sys.stderr)
            return 2
        return subprocess.run([str(python), str(Path(__file__).resolve()), *argv], check=False).returncode
    if args.target == "wheel":
        print(f"built {build_wheel(args.out)}")
    elif args.target == "linux":
        build_linux(args.out, tarball=not args.no_tarball)
    else:
        built = build_macos(args.out) if args.target == "macos" else build_windows(args.out)
        print("built " + ", ".join(str(path) for path in built))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
