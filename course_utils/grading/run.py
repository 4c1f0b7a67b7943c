"""Grader side: execute a rebuilt notebook in a world's kernel, and read the restored cells' results.
"""

from __future__ import annotations

from course_utils.grading import student_check as grading
from course_utils.grading.probe import MIME_TYPE
from course_utils.grading.world import World

STARTS = 3  # attempts to start a kernel that dies before running its first cell


def execute(nb, world: World, timeout: float, backend: str,
             exercises: dict[int, str]) -> tuple[set[int], str]:
    """Run ``nb`` in place in ``world``; return (indices of timed-out or skipped cells, reason).

    Once a check cell of an exercise times out, the exercise's later check cells are skipped.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    class Client(NotebookClient):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            clients.append(kc)
            return kc

        async def _async_handle_timeout(self, timeout, cell=None):
            if id(cell) in timed_out:  # the interruption did not work: give up on this run
                raise CellTimeoutError.error_from_timeout_and_cell(
                    "cellule non interruptible", timeout, cell)
            timed_out.add(id(cell))
            return await super()._async_handle_timeout(timeout, cell)

        async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
            exercise = exercises.get(cell_index)
            if exercise is not None and exercise in given_up:
                timed_out.add(id(cell))
                return cell
            cell = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
            if exercise is not None and id(cell) in timed_out:
                given_up.add(exercise)
            return cell

    clients: list = []
    timed_out: set[int] = set()
    given_up: set[str] = set()
    stopped = ""
    for _ in range(STARTS):
        manager = world.kernel_manager(backend)
        client = Client(nb, km=manager, timeout_func=lambda cell: timeout,
                        allow_errors=True, interrupt_on_timeout=True, startup_timeout=60,
                        shutdown_kernel="immediate", record_timing=False,
                        resources={"metadata": {"path": str(world.work)}})
        try:
            client.execute(env=world.kernel_env(backend), cleanup_kc=True)  # we own the kernel
            stopped = ""
        except DeadKernelError:
            stopped = "le noyau Python s'est arrêté pendant l'exécution"
        except CellTimeoutError:
            stopped = f"{grading.TIMEOUT} : une cellule ne répond plus à l'interruption"
        except Exception as exc:  # kernel that cannot start, etc.
            stopped = f"exécution impossible ({type(exc).__name__}: {exc})"
        finally:  # the ZeroMQ contexts are ours to end: without this, ~25 descriptors leak
            for kc in clients:
                kc.context.destroy(linger=0)
            clients.clear()
            manager.context.destroy(linger=0)
        started = any(cell.get("execution_count") or cell.get("outputs")
                      for cell in nb.cells if cell.get("cell_type") == "code")
        if not stopped or started:
            break  # a kernel that died before running anything (a port taken meanwhile by
            # another process, a loaded machine) is started again, up to STARTS times
    indices = {index for index, cell in enumerate(nb.cells) if id(cell) in timed_out}
    return indices, stopped


def mime_outputs(cell) -> list:
    return [output.get("data", {}).get(MIME_TYPE) for output in cell.get("outputs", [])
            if output.get("output_type") in ("display_data", "execute_result", "update_display_data")
            and MIME_TYPE in output.get("data", {})]


def payload_of(cell, nonce: str, cell_id: str):
    """The one result payload of a restored cell, ``"double"`` if several, else None."""
    valid = [p for p in mime_outputs(cell) if isinstance(p, dict) and p.get("nonce") == nonce
             and p.get("cell") == cell_id and isinstance(p.get("records"), list)]
    if len(valid) > 1:
        return "double"
    return valid[0] if valid else None
