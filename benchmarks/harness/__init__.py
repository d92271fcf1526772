"""Measurements that need a judge (the embedded one by default, or any OpenAI-compatible
endpoint): accuracy, answers, speed, scale, streaming. Each script's docstring gives its
command, the judge it needs and its time on the 2-core development machine."""
