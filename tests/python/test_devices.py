"""The device rules through the Python binding, without a GPU: which
device a call runs on, the peer_access= keyword, and the peer functions."""
import pytest

import croqjit

SCALE = """__co__ void scale(s32 [N] x, s32 [N] y, int f) {
  parallel i by N
    y.at(i) = x.at(i) * f;
}"""


def spec(device):
    return croqjit.TensorSpec((64,), "s32", device=device)


def test_a_tensor_on_another_device_says_how_to_allow_it():
    k = croqjit.compile(SCALE)
    with pytest.raises(croqjit.ArgumentError) as caught:
        k.prepare(spec(40), spec(41), 2)
    assert str(caught.value) == (
        "argument 2 'y' is on device 41 but the kernel runs on device 40 (the device of argument 1 'x'); pass a "
        "tensor on device 40, or read it over the peer link: croq::enable_peer_access(40, 41) and "
        "LaunchOptions::peer_access")
    with pytest.raises(croqjit.ArgumentError) as caught:
        k.prepare(spec(40), spec(41), 2, peer_access=True)
    assert str(caught.value) == (
        "argument 2 'y' is on device 41 but the kernel runs on device 40 (the device of argument 1 'x'), and peer "
        "access from device 40 to device 41 is not enabled: call croq::enable_peer_access(40, 41) first")


def test_peer_functions_refuse_negative_ordinals():
    with pytest.raises(croqjit.ArgumentError, match=r"^croq::enable_peer_access: device ordinal -1 is negative$"):
        croqjit.enable_peer_access(-1, 0)
    with pytest.raises(croqjit.ArgumentError, match=r"^croq::can_access_peer: device ordinal -3 is negative$"):
        croqjit.can_access_peer(0, -3)
    assert (croqjit.device_count() > 0) == croqjit.cuda_available()
