"""One batch run: read the input, skip what the output already answers, verify the rest on
the chosen engine, append each row as it finishes, and count."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from judge.batch.outcome import Row
from judge.batch.output import JsonlOutput
from judge.batch.plan import pending_items
from judge.batch.records import BatchItem, count_lines, input_files, read_items
from judge.batch.summary import Progress, Summary
from judge.config import Settings
from judge.errors import InputError

# Statuses reported on stderr as they are written (file:line: why): the input's own faults.
# Verifier errors are counted in the summary; a dead judge would repeat one message per record.
REPORTED = ("invalid", "malformed")


@dataclass(frozen=True)
class BatchOptions:
    inputs: list[str]
    out: Path
    engine: str = "local"  # local | ray
    fmt: str = "jsonl"  # jsonl | parquet
    concurrency: int = 8  # records at once (per actor with Ray)
    retry_errors: bool = False
    use_judge: bool = True
    ray_address: str | None = None
    workers: int = 2  # Ray actors
    # Records per Ray batch. An actor verifies one batch at a time, at most `concurrency` of
    # its records at once, so a batch smaller than `concurrency` caps what is in flight.
    batch_size: int = 8
    progress_every_s: float = 2.0


def run_batch(options: BatchOptions, settings: Settings, *, stdin: TextIO | None = None) -> Summary:
    try:
        files = input_files(options.inputs)
    except FileNotFoundError as exc:
        raise InputError(str(exc), field="IN") from None
    if options.engine != "ray":
        return _run(files, options, settings, stdin)
    from judge.batch import ray_engine

    # Connect first: a wrong address fails before any output is opened.
    ray_engine.start_ray(
        options.ray_address, num_cpus=options.workers + 1, state_dir=settings.state_dir
    )
    try:
        return _run(files, options, settings, stdin)
    finally:
        ray_engine.stop_ray()


def _run(
    files: list[str], options: BatchOptions, settings: Settings, stdin: TextIO | None
) -> Summary:
    if options.fmt == "parquet":
        from judge.batch.parquet_output import ParquetOutput

        output: JsonlOutput | ParquetOutput = ParquetOutput(
            options.out, retry_errors=options.retry_errors
        )
    else:
        output = JsonlOutput(options.out, retry_errors=options.retry_errors)
    summary = Summary()
    progress = Progress(sys.stderr, count_lines(files), every_s=options.progress_every_s)
    if output.dropped_errors:
        print(f"judge batch: retrying {output.dropped_errors} error records", file=sys.stderr)

    def write(row: Row) -> None:
        if row["status"] in REPORTED:
            print(f"{row['source']}: {row['status']} record: {row['errors'][0]}", file=sys.stderr)
        output.write(row)
        summary.add(row)
        progress.advance()

    try:
        items = pending_items(read_items(files, stdin), output.done, summary, progress)
        if options.engine == "ray":
            _run_on_ray(items, settings, write, options)
        else:
            from judge.batch.local import run_local

            asyncio.run(
                run_local(
                    items,
                    settings,
                    write,
                    concurrency=options.concurrency,
                    use_judge=options.use_judge,
                )
            )
    finally:
        output.close()
        summary.finish()
        progress.final()
    return summary


def _run_on_ray(
    items: Iterable[BatchItem],
    settings: Settings,
    write: Callable[[Row], None],
    options: BatchOptions,
) -> None:
    from judge.batch import ray_engine

    if options.use_judge and not settings.base_url:
        # Every actor must share one endpoint, not start an embedded server each.
        from judge.pipeline.entail.connect import resolve_endpoint

        base_url, model = asyncio.run(resolve_endpoint(settings))
        settings = settings.model_copy(update={"base_url": base_url, "model": model})
    dataset = ray_engine.verified_dataset(
        items,
        settings,
        workers=options.workers,
        concurrency=options.concurrency,
        batch_size=options.batch_size,
        use_judge=options.use_judge,
    )
    if dataset is not None:
        ray_engine.write_rows(dataset, write)
