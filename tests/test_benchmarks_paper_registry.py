"""benchmarks/paper/registry.py: which runs make which table, and their run keys."""

from dataclasses import replace

from paper import registry


def test_solution_table_jobs_follow_the_paper_protocol():
    jobs = list(registry.jobs_for("solution", 2, "paper", None, None))
    assert len(jobs) == 2 * 13 * 2 * 4  # runs x functions x {50, 100}D x 4 algorithms
    assert {j.budget for j in jobs if j.dim == 100} == {1_000_000}
    assert len({j.key for j in jobs}) == len(jobs)
    all_sizes = list(registry.jobs_for("solution", 1, "all", ["F1"], [50]))
    assert sorted({j.population_size for j in all_sizes}) == [200, 500, 1000, 2000]
    assert {j.budget for j in registry.jobs_for("500d", 1, "paper", ["F1"], None)} == {2_500_000}


def test_every_table_has_jobs_with_distinct_keys():
    for table in registry.TABLES:
        jobs = list(registry.jobs_for(table, 2, "all", None, None))
        assert jobs and len({j.key for j in jobs}) == len(jobs), table
        assert {j.table for j in jobs} == {table}


def test_official_instances_get_their_own_keys_and_only_where_data_exist():
    job = next(registry.jobs_for("solution", 1, "paper", ["F10"], [50]))
    official = replace(job, instance=registry.instance_for("F10", 50, True))
    assert official.instance == "cec2005" and official.key == job.key + "__cec2005"
    assert registry.instance_for("F11", 50, True) == "generated"  # not a CEC2005 function
    assert registry.instance_for("F10", 500, True) == "generated"  # no data beyond 100D


def test_campaign_filters_columns_and_keeps_only_official_cells_with_cec2005():
    jobs = registry.campaign(["solution"], 1, "paper", columns=["edamcc"])
    assert {j.column for j in jobs} == {"edamcc"} and len(jobs) == 26
    official = registry.campaign(["solution"], 1, "paper", columns=["edamcc"], cec2005=True)
    assert {j.instance for j in official} == {"cec2005"}
    assert sorted({j.function for j in official}, key=lambda f: int(f[1:])) == ["F2", "F8", "F9", "F10", "F12", "F13"]


def test_run_files_from_before_instances_count_as_generated():
    assert registry.generated({}) and not registry.generated({"instance": "cec2005"})
