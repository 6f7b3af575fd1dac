"""The shop's store: real side effects, atomic writes, refusals the model can read."""

import json
import os
import subprocess
import sys
import threading

import pytest

from course import paths
from course.errors import ToolFailure
from course.orders import orders
from course.store import ShopStore, StoreError, write_atomically
from course.tools import Toolbox


@pytest.fixture
def store(tmp_path):
    return ShopStore(tmp_path / "shop.json")


def test_a_new_store_starts_from_the_shops_orders_with_no_tickets_or_refunds(store):
    assert store.orders() == orders()
    assert store.tickets() == [] and store.refunds() == []
    assert json.loads(store.path.read_text())["orders"]["A1001"]["total"] == 49.0


def test_the_default_store_lives_under_the_work_folder():
    assert ShopStore().path == paths.WORK / "shop.json"


def test_changes_are_saved_to_the_file_and_seen_by_another_store_object(store):
    ticket = store.create_ticket("A1001", "Broken kettle", "The lid does not close.")
    refund = store.issue_refund("A1002", 10, "One mug was chipped.")
    again = ShopStore(store.path)
    assert again.tickets() == [ticket] and ticket["ticket_id"] == "T-0001"
    assert again.refunds() == [refund] and refund == {"refund_id": "R-0001", "order_id": "A1002", "amount": 10.0,
                                                      "reason": "One mug was chipped.", "created": "2026-11-20"}


def test_refunds_add_up_to_at_most_the_order_total(store):
    store.issue_refund("A1001", 40, "Dent in the side.")
    with pytest.raises(ToolFailure, match=r"at most 9\.00 is left \(total 49\.00, already refunded 40\.00\)"):
        store.issue_refund("A1001", 10, "More dents.")
    store.issue_refund("A1001", 9, "Rest of the price.")
    with pytest.raises(ToolFailure, match="already refunded in full"):
        store.issue_refund("A1001", 1, "Once more.")
    assert store.refunded("A1001") == 49.0


@pytest.mark.parametrize("call, message", [
    (lambda s: s.issue_refund("A1001", 49.01, "Too much."), "Refusing to refund 49.01"),
    (lambda s: s.issue_refund("A1001", 0, "Nothing."), "positive amount"),
    (lambda s: s.issue_refund("A9999", 5, "Unknown."), "No order A9999"),
    (lambda s: s.create_ticket("A9999", "Hello", "Unknown order."), "No order A9999"),
    (lambda s: s.cancel_order("A1001", "Changed my mind."), "A1001 is shipped, so it can no longer be cancelled"),
])
def test_a_refused_change_says_why_and_leaves_the_file_untouched(store, call, message):
    store.load()  # creates the file
    before = store.path.read_bytes()
    with pytest.raises(ToolFailure, match=message):
        call(store)
    assert store.path.read_bytes() == before


def test_cancelling_a_processing_order_changes_its_status_once(store):
    assert store.cancel_order("A1003", "Ordered twice by mistake.")["status"] == "cancelled"
    assert store.order("A1003")["status"] == "cancelled"
    with pytest.raises(ToolFailure, match="is cancelled"):
        store.cancel_order("A1003", "Again.")


def test_reset_restores_the_seed(store):
    store.issue_refund("A1004", 189, "Returned.")
    store.cancel_order("A1003", "Not needed.")
    store.reset()
    assert store.load() == {"orders": orders(), "tickets": [], "refunds": []}


def test_a_crash_while_writing_keeps_the_old_file_whole_and_leaves_no_temp_file(store, monkeypatch):
    store.create_ticket("A1001", "Broken kettle", "The lid does not close.")
    before = store.path.read_bytes()

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)  # the new content never reaches the disk
    with pytest.raises(OSError, match="disk full"):
        store.issue_refund("A1001", 5, "Small dent.")
    assert store.path.read_bytes() == before
    assert [p.name for p in store.path.parent.iterdir() if p.suffix == ".tmp"] == []


def test_a_crash_in_the_middle_of_serialising_keeps_the_old_file(tmp_path):
    path = tmp_path / "data.json"
    write_atomically(path, {"a": 1})

    class Unserialisable:
        pass

    with pytest.raises(TypeError):
        write_atomically(path, {"a": 2, "b": Unserialisable()})  # json.dump fails half-way through
    assert json.loads(path.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.json"]


def test_a_hand_edited_broken_file_gets_a_clear_error_and_is_not_overwritten(store):
    store.path.write_text('{"orders": {')
    with pytest.raises(StoreError, match=r"not valid JSON .*\.reset\(\) to start again .*keeps this file as "
                                         r"shop\.json\.bak"):
        store.tickets()
    with pytest.raises(StoreError):
        store.create_ticket("A1001", "Broken kettle", "The lid does not close.")
    assert store.path.read_text() == '{"orders": {'


def test_concurrent_refunds_never_exceed_the_total(store):
    outcomes = []

    def refund():
        try:
            outcomes.append(store.issue_refund("A1004", 100, "Chair broke."))
        except ToolFailure as e:
            outcomes.append(e)

    threads = [threading.Thread(target=refund) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sum(isinstance(o, dict) for o in outcomes) == 1 and store.refunded("A1004") == 100.0


HOLD_THE_LOCK = """
import sys
from course.store import ShopStore
with ShopStore(sys.argv[1])._locked():
    print("holding", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


def test_a_change_waits_for_another_process_and_gives_up_with_a_message_instead_of_hanging(store):
    store.load()
    with subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(store.path)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, env=os.environ | {"PYTHONPATH": str(paths.ROOT)}) as other:
        try:  # the `with` closes its pipes
            assert other.stdout.readline() == "holding\n"
            store.lock_timeout = 0.2
            with pytest.raises(StoreError, match="busy for 0.2 s: another program is changing it"):
                store.issue_refund("A1004", 10, "Chair broke.")
        finally:
            other.stdin.close()
            other.wait(30)
    assert store.refunded("A1004") == 0
    store.issue_refund("A1004", 10, "Chair broke.")  # the other process is gone: the lock is free
    assert store.refunded("A1004") == 10


def test_write_tools_are_marked_write_and_validate_their_arguments(store):
    tools = store.write_tools()
    assert {t.name: t.risk for t in tools} == {"create_ticket": "write", "issue_refund": "write",
                                               "cancel_order": "write"}
    assert all(len(t.description) > 40 for t in tools)
    box = Toolbox(*tools, *store.read_tools())
    assert box.execute("issue_refund", '{"order_id": "A1001", "amount": -3, "reason": "Broken."}').startswith(
        "Error: invalid arguments for issue_refund: amount: Input should be greater than 0")
    assert store.refunds() == []


def test_write_tools_change_the_store_and_report_refusals_as_text(store):
    box = Toolbox(*store.write_tools(), *store.read_tools())
    reply = json.loads(box.execute("issue_refund", '{"order_id": "A1001", "amount": 49, "reason": "Broken."}'))
    assert reply["refund_id"] == "R-0001" and store.refunded("A1001") == 49.0
    again = box.execute("issue_refund", '{"order_id": "A1001", "amount": 49, "reason": "Broken."}')
    assert again.startswith("Error: Order A1001 is already refunded in full")
    record = json.loads(box.execute("get_order_record", '{"order_id": "A1001"}'))
    assert record["refunded"] == 49.0 and record["refundable"] == 0.0


def test_reset_keeps_the_old_file_with_hand_edits_as_a_backup(store):
    store.issue_refund("A1004", 189, "Returned.")
    edited = store.path.read_text().replace("Returned.", "Returned, edited by hand.")
    store.path.write_text(edited)
    store.reset()
    assert store.backup.name == "shop.json.bak" and store.backup.read_text() == edited
    store.reset()  # already the seed: nothing new to keep, so the backup of the edits survives
    assert store.backup.read_text() == edited and store.refunds() == []


def test_reset_repairs_a_store_broken_by_hand_and_keeps_the_broken_file(store):
    store.path.write_text('{"orders": {"A1001": ')
    store.reset()
    assert store.orders() == orders() and store.backup.read_text() == '{"orders": {"A1001": '


@pytest.mark.parametrize("content", ['{"notes": ["buy milk"]}', "Dear diary,\n", "[1, 2, 3]"])
def test_reset_refuses_to_overwrite_a_file_that_is_not_a_store(tmp_path, content):
    other = tmp_path / "some_other.json"
    other.write_text(content)
    with pytest.raises(StoreError, match="is not a shop store, so reset\\(\\) will not overwrite it"):
        ShopStore(other).reset()
    assert other.read_text() == content and not (tmp_path / "some_other.json.bak").exists()


def test_writes_keep_the_files_permissions_and_new_stores_are_readable_by_others(store):
    store.load()
    assert store.path.stat().st_mode & 0o777 == 0o644
    store.path.chmod(0o640)
    store.issue_refund("A1001", 5, "Small dent.")
    store.reset()
    assert store.path.stat().st_mode & 0o777 == 0o640


def test_reset_removes_temp_files_a_killed_process_left_behind(store):
    store.load()
    leftover = store.path.with_name(".shop.json.k1ll3d.tmp")
    leftover.write_text('{"orders": {')
    store.reset()
    assert not leftover.exists() and store.orders() == orders()


@pytest.mark.parametrize("amount", ['"NaN"', '"Infinity"', "1e400"])
def test_a_refund_of_an_amount_that_is_not_a_real_number_is_refused(store, amount):
    box = Toolbox(*store.write_tools())
    reply = box.execute("issue_refund", f'{{"order_id": "A1004", "amount": {amount}, "reason": "Broken chair."}}')
    assert reply.startswith("Error: invalid arguments for issue_refund: amount:") and store.refunds() == []


def test_a_refund_of_nan_or_infinity_through_the_python_api_is_refused_and_changes_nothing(tmp_path):
    store = ShopStore(tmp_path / "shop.json")
    for amount in (float("nan"), float("inf")):
        with pytest.raises(ToolFailure, match="positive amount"):
            store.issue_refund("A1002", amount, "broken")
    assert store.refunds() == []
