import pytest

from judge.cli import app as cli


def test_unexpected_fault_is_a_verifier_error_exit_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(args: object) -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.delenv("JUDGE_DEBUG", raising=False)
    parser = cli.build_parser("schema")
    real_parse = parser.parse_args

    def parse(argv: object = None) -> object:
        args = real_parse(["schema"])
        args.run = boom
        return args

    monkeypatch.setattr(cli, "build_parser", lambda command=None: parser)
    monkeypatch.setattr(parser, "parse_args", parse)
    assert cli.main([]) == cli.EXIT_VERIFIER_ERROR
    err = capsys.readouterr().err
    assert err.strip() == "judge: internal error: RuntimeError: disk on fire"
