"""PDF manuals of TeX Live's Debian documentation packages (``texlive-*-doc``): read out
of the downloaded ``.deb`` files, checked by sha256, for the pdftotext kinds of the
flat-text dev set (eval/flat-text/README.md, *TeX Live manuals*).

A source is written ``PACKAGE@VERSION:PATH`` (``texlive-science-doc@2022.20230122-4:
usr/share/doc/texlive-doc/latex/siunitx/siunitx.pdf``); the ``.deb`` is the file
``apt-get download PACKAGE`` leaves, ``PACKAGE_VERSION_all.deb``. Members are read with
``dpkg-deb --fsys-tarfile`` (one pass over the archive for all the paths wanted from it:
the big packages take tens of seconds to decompress).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import subprocess
import tarfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from devset_sources import DevSetError

from pipeline.ingest.files import file_sha256

# "package@version:path", then optional prose (as the manifests' source strings)
_SOURCE = re.compile(r"^(texlive-[\w.+-]+-doc)@([\w.+:~-]+?):(\S+)")
DOC_ROOT = "usr/share/doc/texlive-doc/"  # where the packages put texmf-dist/doc/


@dataclass(frozen=True)
class DebSource:
    """A file inside one version of a Debian package."""

    package: str
    version: str
    path: str

    @classmethod
    def parse(cls, text: str) -> DebSource:
        m = _SOURCE.match(text)
        if m is None:
            raise DevSetError(f"not a texlive-NAME-doc@version:path source: {text!r}")
        return cls(*m.groups())

    @property
    def deb_name(self) -> str:
        """The file name ``apt-get download`` gives the package (epoch dropped)."""
        return f"{self.package}_{self.version.split(':')[-1]}_all.deb"

    def __str__(self) -> str:
        return f"{self.package}@{self.version}:{self.path}"


@lru_cache(maxsize=4)
def _checked_deb(debs: Path, name: str, sha256: str) -> Path:
    """``debs/name``, its sha256 checked once per build."""
    path = debs / name
    if not path.is_file():
        package = name.split("_", 1)[0]
        raise DevSetError(f"{path}: missing (apt-get download {package}, that version)")
    got = file_sha256(path)
    if got != sha256:
        raise DevSetError(f"{path}: sha256 {got}, manifest {sha256} (another version?)")
    return path


def deb_members(deb: Path, paths: tuple[str, ...]) -> dict[str, bytes]:
    """The regular files ``paths`` of the package's data, read in one pass; a path that
    is not a regular file in it is an error naming the package."""
    wanted = {p.removeprefix("./") for p in paths}
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    found: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                name = member.name.removeprefix("./")
                if name in wanted and member.isfile():
                    data = tar.extractfile(member)
                    found[name] = data.read() if data else b""
                    if len(found) == len(wanted):
                        break
    finally:
        proc.stdout.close()
        proc.kill()  # no need to decompress the rest once every path is read
        proc.wait()
    if missing := sorted(wanted - found.keys()):
        raise DevSetError(f"{deb.name}: no regular file {', '.join(missing)} in it")
    return found


@lru_cache(maxsize=16)
def _members(deb: Path, paths: tuple[str, ...]) -> dict[str, bytes]:
    return deb_members(deb, paths)


def texlive_pdf(
    debs: Path, source: DebSource, deb_sha256: str, pdf_sha256: str, wanted: tuple[str, ...]
) -> bytes:
    """The PDF ``source`` names, read from its ``.deb`` under ``debs`` (both checked by
    sha256). ``wanted`` is every path the build reads from that package, so that the
    archive is decompressed once for all of them."""
    deb = _checked_deb(debs, source.deb_name, deb_sha256)
    pdf = _members(deb, tuple(sorted({source.path, *wanted})))[source.path]
    got = hashlib.sha256(pdf).hexdigest()
    if got != pdf_sha256:
        raise DevSetError(f"{source}: sha256 {got}, manifest {pdf_sha256}")
    return pdf


# ---------- licences ----------


def licence_table(licenses_gz: bytes) -> list[tuple[str, str, list[str]]]:
    """The ``Licenses.gz`` file of a texlive Debian package (generated from the TeX
    Catalogue): per catalogue entry its name, licence tag and file patterns
    (``texmf-dist/doc/latex/NAME/*``)."""
    table: list[tuple[str, str, list[str]]] = []
    for line in gzip.decompress(licenses_gz).decode("utf-8", "replace").splitlines():
        if m := re.match(r"^(\S+): (.+)$", line):
            table.append((m.group(1), m.group(2).strip(), []))
        elif line.startswith("texmf-dist/") and table:
            table[-1][2].append(line.strip())
    return table


def licence_of(table: list[tuple[str, str, list[str]]], path: str) -> tuple[str, str] | None:
    """The (catalogue name, licence tag) of the doc file ``path``: the entry listing the
    file itself, else the one whose ``DIR/*`` is its folder or the nearest folder above
    (a package's examples and samples sit in subfolders its entry does not list)."""
    rel = "texmf-dist/doc/" + path.removeprefix(DOC_ROOT)
    owners: dict[str, tuple[str, str]] = {}
    for name, tag, patterns in table:
        for pat in patterns:
            owners.setdefault(pat.removesuffix("/*") if pat.endswith("/*") else pat, (name, tag))
    if rel in owners:
        return owners[rel]
    folder = rel
    while "/" in folder and folder != "texmf-dist/doc":
        folder = folder.rsplit("/", 1)[0]
        if folder in owners:
            return owners[folder]
    return None
