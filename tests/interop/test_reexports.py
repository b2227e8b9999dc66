"""The interop functions are reachable from the top-level gojax package."""

import gojax
import gojax.interop


def test_top_level_names_are_the_interop_functions():
    for name in ("to_arrow", "from_arrow", "from_dlpack", "ArrowTensor"):
        assert getattr(gojax, name) is getattr(gojax.interop, name)
        assert name in gojax.__all__
