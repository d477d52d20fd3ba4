"""Files of the dev sets' public repositories, read from local git snapshots (mirrors).

A mirror of ``owner/name`` is ``MIRRORS/owner+name/repo`` (a bare git directory, or a
clone holding ``.git``), as the session tool ``fetch github:owner/name`` leaves it. Files
are read at the commit the manifest pins (``git show COMMIT:PATH``), never from a work
tree, so the build is the same whatever the mirror's newest commit is.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import FolioError


class DevSetError(FolioError):
    """A dev-set file could not be built: its source is missing or its bytes differ."""


# "owner/name@<40 hex>:path", then optional prose (the manifests' source strings)
_SOURCE = re.compile(r"^([\w.-]+/[\w.-]+)@([0-9a-f]{40}):(\S+)")


@dataclass(frozen=True)
class Source:
    """A path of a repository at one commit (a file, or a folder ending in ``/``)."""

    repo: str
    commit: str
    path: str

    @classmethod
    def parse(cls, text: str) -> Source:
        """The ``owner/name@commit:path`` a manifest's source string starts with."""
        m = _SOURCE.match(text)
        if m is None:
            raise DevSetError(f"not an owner/name@commit:path source: {text!r}")
        return cls(*m.groups())

    def at(self, path: str) -> Source:
        """Another path of the same repository and commit."""
        return Source(self.repo, self.commit, path)

    def __str__(self) -> str:
        return f"{self.repo}@{self.commit}:{self.path}"


@dataclass(frozen=True)
class Mirrors:
    """The folder of git snapshots, one per repository."""

    root: Path

    def git_dir(self, repo: str) -> Path:
        base = self.root / repo.replace("/", "+") / "repo"
        git = base / ".git" if (base / ".git").is_dir() else base
        if not (git / "objects").is_dir():
            raise DevSetError(f"no mirror of {repo} at {base}: fetch github:{repo}")
        return git

    def _git(self, src: Source, *args: str) -> bytes:
        try:
            git = self.git_dir(src.repo)
        except DevSetError as exc:
            raise DevSetError(f"{src}: {exc}") from None
        proc = subprocess.run(
            ["git", "--git-dir", str(git), *args],
            capture_output=True,
            check=False,
        )
        if proc.returncode != 0:
            why = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            raise DevSetError(
                f"{src}: not in the mirror ({' '.join(why)}); fetch github:{src.repo}"
                " again (a newer snapshot holding that commit)"
            )
        return proc.stdout

    def read(self, src: Source) -> bytes:
        """The bytes of the file ``src`` names."""
        return self._git(src, "show", f"{src.commit}:{src.path}")

    def files(self, src: Source) -> list[str]:
        """The paths of the files under the folder ``src`` names, in git's order."""
        out = self._git(src, "ls-tree", "-r", "--name-only", src.commit, "--", src.path)
        return out.decode("utf-8").splitlines()
