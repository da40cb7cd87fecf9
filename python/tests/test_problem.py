"""proxima.Problem: from dense and scipy.sparse arrays, from and to files,
its properties, and the exact messages of bad input."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

import proxima
from conftest import TWO_BOXES, cli, shared


def small():
    """Two contacts coupled by one off-diagonal block, the (0, 1) block."""
    w = np.eye(6) * 2.0
    w[0, 3] = w[3, 0] = 0.5
    q = np.array([-1.0, 0.2, 0.1, -0.5, 0.0, 0.3])
    return w, q, np.array([0.3, 0.5])


def message(excinfo):
    return str(excinfo.value)


def test_read_two_boxes():
    p = proxima.Problem.read(TWO_BOXES)
    assert (p.n_contacts, p.block_size) == (8, 3)
    assert p.q.shape == (24,) and p.mu.shape == (8,)
    assert np.all(p.mu == 0.4)
    assert p.W.shape == (24, 24) and p.W.blocksize == (3, 3)
    assert np.array_equal(p.W.toarray(), p.dense())


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
@pytest.mark.parametrize("form", ["dense", "csr", "csc", "bsr", "matrix"])
def test_forms_store_the_same_problem(form):
    w, q, mu = small()
    made = {"dense": lambda: w, "csr": lambda: sp.csr_matrix(w),
            "csc": lambda: sp.csc_matrix(w),
            "bsr": lambda: sp.bsr_matrix(w, blocksize=(3, 3)),
            "matrix": lambda: np.asmatrix(w)}[form]()
    p = proxima.Problem(made, q, mu)
    assert np.array_equal(p.dense(), w)
    assert np.array_equal(p.q, q) and np.array_equal(p.mu, mu)
    # the stored blocks: the two diagonal ones and the coupling ones
    assert p.W.nnz == 4 * 9


def test_inputs_are_copied():
    w, q, mu = small()
    p = proxima.Problem(w, q, mu)
    w[0, 0] = q[0] = mu[0] = 99.0
    assert p.dense()[0, 0] == 2.0 and p.q[0] == -1.0 and p.mu[0] == 0.3
    got = p.q
    got[0] = 5.0
    assert p.q[0] == -1.0


def test_zero_off_diagonal_blocks_are_not_stored():
    w = np.eye(9)
    p = proxima.Problem(w, np.zeros(9), 0.5)
    assert p.W.nnz == 3 * 9 and np.all(p.mu == 0.5)


def test_missing_diagonal_block_stored_as_zeros():
    w = np.zeros((6, 6))
    w[0:3, 3:6] = np.eye(3)
    w[3:6, 0:3] = np.eye(3)
    p = proxima.Problem(sp.csr_matrix(w), np.zeros(6), [0.1, 0.1])
    assert p.W.nnz == 4 * 9 and np.array_equal(p.dense(), w)


def test_sparse_duplicates_summed_as_scipy_does():
    w = sp.coo_matrix(([1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0],
                       ([0, 0, 1, 2, 3, 4, 5], [0, 0, 1, 2, 3, 4, 5])),
                      shape=(6, 6)).tocsr(copy=False)
    p = proxima.Problem(w, np.zeros(6), 0.2)
    assert p.dense()[0, 0] == 3.0


@pytest.mark.parametrize("ext", [".dat", ".hdf5"])
def test_write_reads_back_bit_for_bit(tmp_path, ext):
    p = proxima.Problem.read(TWO_BOXES)
    path = tmp_path / ("two" + ext)
    p.write(path)
    back = proxima.Problem.read(path)
    assert np.array_equal(back.dense(), p.dense())
    assert np.array_equal(back.q, p.q) and np.array_equal(back.mu, p.mu)


def test_write_as_convert_does(tmp_path):
    ours, theirs = tmp_path / "py.dat", tmp_path / "cli.dat"
    proxima.Problem.read(TWO_BOXES).write(str(ours))
    assert cli("convert", TWO_BOXES, str(theirs))[0] == 0
    assert ours.read_bytes() == theirs.read_bytes()


def test_read_fclib_shared():
    p = proxima.Problem.read(shared("Capsules-i125-1213.hdf5"))
    assert p.n_contacts > 100 and p.block_size == 3


def test_refusals_of_files_as_the_command_says(tmp_path):
    bad = tmp_path / "bad.dat"
    bad.write_text("# not a problem\n")
    for path in ["/nonexistent/x.dat", str(bad)]:
        with pytest.raises(proxima.Error) as e:
            proxima.Problem.read(path)
        status, _, err = cli("solve", path, check=False)
        assert status == 2 and err == f"proxima: {e.value}\n"
    with pytest.raises(OSError) as e:
        proxima.Problem.read("/nonexistent/x.dat")
    assert isinstance(e.value, proxima.FileError)
    assert message(e) == "/nonexistent/x.dat: cannot open: No such file or directory"


def test_write_refuses_an_unknown_extension(tmp_path):
    p = proxima.Problem.read(TWO_BOXES)
    with pytest.raises(proxima.Error) as e:
        p.write(tmp_path / "x.txt")
    assert message(e) == (f"{tmp_path}/x.txt: unknown output format "
                          "(expected a name ending in .dat, .hdf5 or .h5)")
    assert not (tmp_path / "x.txt").exists()


def bad(W=None, q=None, mu=None):
    w0, q0, mu0 = small()
    with pytest.raises(proxima.Error) as e:
        proxima.Problem(w0 if W is None else W, q0 if q is None else q,
                        mu0 if mu is None else mu)
    assert isinstance(e.value, ValueError)
    return message(e)


def test_refusals_of_arrays():
    w, q, mu = small()
    assert bad(W=np.zeros((6, 5))) == "W: expected a square matrix, got 6 x 5"
    assert bad(W=np.eye(7)) == ("W: 7 rows do not make contacts of 3 rows "
                                "(expected a multiple of 3)")
    assert bad(W=np.zeros((0, 0))) == ("W: a problem needs at least one "
                                       "contact, got a 0 x 0 matrix")
    assert bad(W=np.zeros(6)) == ("W: expected a matrix (2-D), got an array "
                                  "of shape (6,)")
    assert bad(W=np.array([["a"] * 6] * 6)) == (
        "W: expected real numbers, got an array of <U1")
    w2 = w.copy()
    w2[1, 2] = np.nan
    assert bad(W=w2) == "W[1, 2] = nan: expected a finite number"
    w2 = sp.lil_matrix(w)
    w2[4, 3] = np.inf
    assert bad(W=w2.tocsr()) == "W[4, 3] = inf: expected a finite number"
    assert bad(q=q[:5]) == "q: expected 6 numbers (2 contacts x 3 rows), got 5"
    q2 = q.copy()
    q2[4] = -np.inf
    assert bad(q=q2) == "q[4] = -inf: expected a finite number"
    assert bad(q=q.reshape(2, 3)) == ("q: expected a 1-D array of 6 numbers, "
                                      "got an array of shape (2, 3)")
    assert bad(q="abc") == "q: expected an array of numbers"
    assert bad(mu=[0.3, -0.5]) == "mu[1] = -0.5: expected mu >= 0"
    assert bad(mu=-1) == "mu[0] = -1.0: expected mu >= 0"
    assert bad(mu=[0.1, 0.2, 0.3]) == ("mu: expected 2 numbers (one per "
                                       "contact), got 3")
    assert bad(mu=[0.1, np.nan]) == "mu[1] = nan: expected a finite number"


def test_refusals_of_sparse_forms():
    w, _, _ = small()
    assert bad(W=sp.bsr_matrix(w, blocksize=(2, 2))) == (
        "W: BSR blocks of 2 x 2 do not fit contacts of 3 rows (expected 3 x 3 "
        "blocks)")
    assert bad(W=sp.coo_matrix(w)) == (
        "W: a scipy.sparse COO matrix: expected CSR, CSC or BSR (convert it "
        "with .tocsr())")
    assert bad(W=sp.csr_matrix(np.ones((6, 9)))) == (
        "W: expected a square matrix, got 6 x 9")


def test_the_core_refuses_bad_bsr_arrays_without_a_crash():
    from proxima import _core
    ok = dict(rowptr=np.array([0, 1], np.uintp),
              cols=np.array([0], np.uint32), blocks=np.eye(3).ravel(),
              q=np.zeros(3), mu=np.array([0.1]))
    cases = [
        (dict(rowptr=np.array([0, 2], np.uintp)),
         "rowptr: the last pointer is 2, expected the number of blocks, 1"),
        (dict(cols=np.array([1], np.uint32)),
         "block (0, 1) out of range (1 block columns)"),
        (dict(blocks=np.zeros(8)),
         "blocks: expected 9 numbers (1 blocks of 3 x 3), got 8"),
        (dict(q=np.zeros(4)),
         "q: expected 3 numbers (1 contacts x 3 rows), got 4"),
        (dict(rowptr=np.array([0], np.uintp)),
         "rowptr: expected 2 block-row pointers (1 contacts + 1), got 1"),
    ]
    for change, msg in cases:
        with pytest.raises(proxima.Error) as e:
            _core.Problem(**dict(ok, **change))
        assert message(e) == msg
