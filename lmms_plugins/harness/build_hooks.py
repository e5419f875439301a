"""setuptools commands that put ``lmms_plugins_hook.pth`` into the wheel's root.

Named in pyproject.toml (``[tool.setuptools.cmdclass]``). A ``.pth`` file must sit directly in
site-packages, which no ``package-data`` setting can do: ``build_py`` writes it into regular
wheels, ``editable_wheel`` appends it to the editable one (``pip install -e .``). Only the
standard library and setuptools/wheel are imported (this runs inside the build environment).
"""

from __future__ import annotations

import os

from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH_NAME = "lmms_plugins_hook.pth"
PTH_LINE = "import lmms_plugins.harness.startup\n"


class BuildPy(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:
            with open(os.path.join(self.build_lib, PTH_NAME), "w", encoding="utf-8") as handle:
                handle.write(PTH_LINE)

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        return outputs if self.editable_mode else [*outputs, os.path.join(self.build_lib, PTH_NAME)]


class EditableWheel(editable_wheel):
    def _create_wheel_file(self, bdist_wheel):
        path = super()._create_wheel_file(bdist_wheel)
        from wheel.wheelfile import WheelFile

        with WheelFile(path, "a") as wheel:  # WheelFile keeps RECORD right, so uninstall removes it
            wheel.writestr(PTH_NAME, PTH_LINE)
        return path
