"""Question families: each makes its own kind of question over corpus files, and checks it again.

`make(rng, corpus)` picks files, words the question and computes the reference from the files
as shown. `check(view)` is the validator's independent proof: it works only from the written
row (question, attached files, reference, recorded derivation), with its own parsing (a direct
scan over lines, a table split from scratch), never with the code that produced it, and
returns the problems it finds. One exception: which of two files a pick criterion chooses
(`criteria.py`) is re-read by the criterion's own readers, the ones the maker chose with; the
tests hold those readers against raw text in every layout instead. `count` is the family's share of a default 1,169-row set; the
counts add up to the card's tiers and answer kinds.
"""

from __future__ import annotations

from merabench.tasks.gorillahard.generator.families.artifacts import (
    check_docker_port,
    check_find_symbol,
    check_image_scan,
    check_image_tags,
    check_pom_call,
    check_pom_license,
    check_slowest_trace,
    check_sql_call,
    check_trace_compare,
    make_docker_port,
    make_find_symbol,
    make_image_scan,
    make_image_tags,
    make_pom_license,
    make_slowest_trace,
    make_trace_compare,
    pom_call_family,
    sql_call_family,
)
from merabench.tasks.gorillahard.generator.families.categorical import (
    check_filter_city,
    check_filter_maintenance,
    make_filter_city,
    make_filter_maintenance,
)
from merabench.tasks.gorillahard.generator.families.choices import (
    ASR_NEEDS,
    STORAGE_NEEDS,
    check_asr_cost,
    check_storage_cost,
    cost_pick_family,
)
from merabench.tasks.gorillahard.generator.families.clarify import clarify_families
from merabench.tasks.gorillahard.generator.families.common import Family, View
from merabench.tasks.gorillahard.generator.families.configs import (
    check_cron,
    check_deploy_scale,
    check_flag_named,
    check_flag_toggle,
    check_json_db,
    check_queue_depth,
    check_queue_peek,
    check_set_image,
    check_set_retries,
    check_unit_conversion,
    check_yaml_call,
    make_cron,
    make_deploy_scale,
    make_env_injection,
    make_flag_toggle,
    make_json_db,
    make_queue_depth,
    make_queue_peek,
    make_set_image,
    make_set_retries,
    make_unit_conversion,
    yaml_call_family,
)
from merabench.tasks.gorillahard.generator.families.constants import (
    check_blame_then_show,
    make_blame_then_show,
)
from merabench.tasks.gorillahard.generator.families.exports import check_export_plan, export_plan
from merabench.tasks.gorillahard.generator.families.flagstates import flag_calls
from merabench.tasks.gorillahard.generator.families.grounded import (
    grounded_families,
)
from merabench.tasks.gorillahard.generator.families.hostlists import DNS_ACTIONS, hosts_calls
from merabench.tasks.gorillahard.generator.families.logs import (
    check_grep_optional,
    check_level_count,
    check_log_window,
    check_retry_download,
    make_grep_optional,
    make_level_count,
    make_log_window,
    make_log_window_nth,
    make_retry_download,
)
from merabench.tasks.gorillahard.generator.families.optional import NARROWINGS, OPTIONAL_CALLS, narrowed
from merabench.tasks.gorillahard.generator.families.refusals import refusal_families
from merabench.tasks.gorillahard.generator.families.tables import (
    check_busiest_server,
    check_cross_file_scale,
    check_table_stat,
    make_busiest_server,
    make_cross_file_scale,
    make_deprecated_sum,
    make_table_stat,
    two_stats,
)
from merabench.tasks.gorillahard.generator.families.tickets import (
    check_assign_author,
    check_close_ticket,
    check_download_then_count,
    check_hosts_scale,
    make_assign_author,
    make_close_ticket,
    make_hosts_scale,
    make_injected_ticket,
)

__all__ = ["FAMILIES", "Family", "View", "make_level_count", "make_table_stat"]

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        # T1: 16
        Family("table_stat", "catalog", "T1_medium", 8, make_table_stat, check_table_stat),
        Family("flag_toggle", "catalog", "T1_medium", 8, make_flag_toggle, check_flag_named),
        # T2: 56
        Family("table_sum_deprecated", "catalog", "T2_hard", 10, make_deprecated_sum, check_table_stat),
        Family("deploy_scale", "schema", "T2_hard", 10, make_deploy_scale, check_deploy_scale),
        Family("log_window", "grounding", "T2_hard", 12, make_log_window, check_log_window),
        Family("docker_port_check", "grounding", "T2_hard", 8, make_docker_port, check_docker_port),
        Family("json_db_check", "schema", "T2_hard", 8, make_json_db, check_json_db),
        Family("ini_queue_depth", "grounding", "T2_hard", 8, make_queue_depth, check_queue_depth),
        # T3: 329
        # clarifications (10, T3) and their near misses (20, T4): a maker per kind of ambiguity
        *clarify_families(),
        Family(
            "asr_cost_pick",
            "constraint",
            "T3_expert",
            3,
            cost_pick_family("asr_cost_pick", ASR_NEEDS, "audio"),
            check_asr_cost,
        ),
        Family("log_window_nth", "scan", "T3_expert", 10, make_log_window_nth, check_log_window),
        # finding the failed step takes reading the whole log: counting over the file, not across two
        Family("retry_failed_download", "recovery", "T3_expert", 8, make_retry_download, check_retry_download),
        Family("slowest_trace", "scan", "T3_expert", 7, make_slowest_trace, check_slowest_trace),
        Family("busiest_server", "scan", "T3_expert", 8, make_busiest_server, check_busiest_server),
        Family("log_level_count", "scan", "T3_expert", 8, make_level_count, check_level_count),
        Family("log_grep_optional", "optional", "T3_expert", 9, make_grep_optional, check_grep_optional),
        Family(
            "sql_count_rows",
            "grounding",
            "T3_expert",
            8,
            sql_call_family(
                "sql_count_rows",
                (
                    "Сколько строк в таблице, которую создаёт эта миграция?",
                    "сколько записей в таблице из миграции?",
                    "Подскажите, пожалуйста, сколько сейчас строк в таблице, которую заводит эта миграция.",
                    "Интересно, сколько уже набралось строк в таблице из этой миграции — глянешь?",
                ),
                "db.count_rows",
                "db.query_readonly",
            ),
            check_sql_call,
        ),
        Family(
            "pom_vuln_check",
            "grounding",
            "T3_expert",
            6,
            pom_call_family(
                "pom_vuln_check",
                (
                    "Проверь на уязвимости ту версию {artifact}, что указана в pom.",
                    "{artifact} из pom — есть ли уязвимости у этой версии?",
                    "Будьте добры, проверьте версию {artifact} из pom-файла на известные уязвимости.",
                ),
                "deps.check_vulns",
                "deps.latest_version",
                True,
            ),
            check_pom_call,
        ),
        Family("cron_from_toml", "schema", "T3_expert", 8, make_cron, check_cron),
        Family("code_find_symbol", "scan", "T3_expert", 6, make_find_symbol, check_find_symbol),
        *(Family(c.name, "optional", "T3_expert", 6, c.make, c.check) for c in OPTIONAL_CALLS),
        Family("image_scan", "grounding", "T3_expert", 6, make_image_scan, check_image_scan),
        Family("set_retries", "schema", "T3_expert", 6, make_set_retries, check_set_retries),
        Family(
            "k8s_status",
            "schema",
            "T3_expert",
            6,
            yaml_call_family(
                "k8s_status",
                "schema",
                (
                    "Покажи состояние развёртывания сервиса из файла.",
                    "статус деплоя сервиса из values?",
                    "Подскажите, в каком состоянии сейчас развёртывание сервиса из этого файла?",
                ),
                "k8s.status",
                "k8s.logs",
            ),
            check_yaml_call,
        ),
        Family(
            "k8s_rollback",
            "schema",
            "T3_expert",
            6,
            yaml_call_family(
                "k8s_rollback",
                "schema",
                (
                    "Откати сервис из файла на предыдущую версию.",
                    "откатить сервис из values на прошлый релиз",
                    "После выкладки всё сломалось — верни, пожалуйста, сервис из этого файла на предыдущую версию.",
                ),
                "k8s.rollback",
                "k8s.restart",
            ),
            check_yaml_call,
        ),
        Family("k8s_set_image", "grounding", "T3_expert", 6, make_set_image, check_set_image),
        Family("ini_queue_peek", "optional", "T3_expert", 6, make_queue_peek, check_queue_peek),
        Family(
            "pom_upgrade_plan",
            "grounding",
            "T3_expert",
            6,
            pom_call_family(
                "pom_upgrade_plan",
                (
                    "Составь план обновления {artifact} с той версии, что указана в pom.",
                    "план апгрейда {artifact} с версии из pom",
                    "Хотим обновить {artifact} — распишите, пожалуйста, план перехода с версии из pom.",
                ),
                "deps.upgrade_plan",
                "deps.latest_version",
                True,
            ),
            check_pom_call,
        ),
        Family("pom_license", "grounding", "T3_expert", 6, make_pom_license, check_pom_license),
        Family(
            "sql_backup",
            "grounding",
            "T3_expert",
            6,
            sql_call_family(
                "sql_backup",
                ("Сделай снимок таблицы, которую создаёт эта миграция.", "бэкап таблицы из миграции",
                 "Перед релизом сохраните, пожалуйста, копию таблицы, которую заводит эта миграция."),
                "db.backup",
                "db.vacuum",
            ),
            check_sql_call,
        ),
        Family(
            "sql_vacuum",
            "grounding",
            "T3_expert",
            6,
            sql_call_family(
                "sql_vacuum",
                ("Очисти от мёртвых строк таблицу из этой миграции.", "vacuum для таблицы из миграции",
                 "Таблица из этой миграции разбухла от удалённых строк — почисти её, пожалуйста."),
                "db.vacuum",
                "db.backup",
            ),
            check_sql_call,
        ),
        Family("image_tags", "grounding", "T3_expert", 6, make_image_tags, check_image_tags),
        Family(
            "servers_in_maintenance",
            "grounding",
            "T3_expert",
            6,
            make_filter_maintenance,
            check_filter_maintenance,
        ),
        Family("sales_in_city", "grounding", "T3_expert", 6, make_filter_city, check_filter_city),
        Family("ticket_close", "grounding", "T3_expert", 6, make_close_ticket, check_close_ticket),
        Family("ticket_assign_author", "grounding", "T3_expert", 6, make_assign_author, check_assign_author),
        Family("trace_compare_slowest", "scan", "T3_expert", 6, make_trace_compare, check_trace_compare),
        Family(
            "storage_cost_pick",
            "constraint",
            "T3_expert",
            3,
            cost_pick_family(
                "storage_cost_pick", STORAGE_NEEDS, "table", " Бакет — archive.", bucket="archive"
            ),
            check_storage_cost,
        ),
        # T4: 738 single-turn + 30 dialogue turns
        # parallel calls: 199 rows, no tool in more than about 4 % of the call rows
        two_stats("two_means", 24, "mean", (
            "Посчитай средние значения по столбцам «{a}» и «{b}» этой таблицы.", "Какие средние у столбцов «{a}» и «{b}»?",
            "Нужны два средних: по столбцу «{a}» и по столбцу «{b}».", "По столбцам «{a}» и «{b}» нужны средние значения.",
            "Средние для колонок «{a}» и «{b}» посчитай, пожалуйста.", "какое среднее в столбце «{a}», а какое — в столбце «{b}»? по таблице"),
        "table.median"),
        two_stats("two_medians", 18, "median", (
            "Посчитай медианы по столбцам «{a}» и «{b}» — по всей таблице.", "Какие медианы у столбцов «{a}» и «{b}» в таблице?",
            "медианы колонок «{a}» и «{b}»?", "Для столбцов «{a}» и «{b}» нужны медианы.",
            "Медианы столбцов «{a}» и «{b}» посчитай, пожалуйста.", "Мне бы медиану столбца «{a}» и медиану столбца «{b}» по этой таблице."),
        "table.mean"),
        two_stats("two_maxima", 18, "max", (
            "Найди максимумы столбцов «{a}» и «{b}» по таблице.", "Какие самые большие значения в столбцах «{a}» и «{b}»?",
            "Будьте добры, найдите максимальные значения в столбцах «{a}» и «{b}» этой таблицы.",
            "Нужны максимальные значения колонок «{a}» и «{b}».", "Максимумы столбцов «{a}» и «{b}» найди, пожалуйста.",
            "Каков наибольший показатель «{a}» и каков — «{b}» в этой таблице?"), "table.min"),
        # one call per host of the drawn inventory that meets the question's condition
        hosts_calls("dns_runbook", 15, "hosts_md", "dns.lookup", "dns.lookup_legacy", DNS_ACTIONS),
        hosts_calls("ttl_runbook_hosts", 15, "hosts_md", "dns.ttl", "dns.lookup", (
            "Какой TTL у записей {gen}?", "Узнай TTL записей {gen}.", "ttl записей {gen}?",
            "Нужен TTL по записям {gen}.", "Узнай время жизни DNS-записей {gen}.",
            "На какое время резолверы кешируют записи {gen}?", "Сколько секунд живут в кеше DNS-записи {gen}?",
            "Какое время жизни у DNS-записей {gen}?", "Посмотри, сколько кешируются записи {gen}.",
            "Проверь время жизни записей DNS {gen}.", "Какой срок кеширования у записей {gen}?")),
        hosts_calls("traceroute_runbook_hosts", 15, "hosts_md", "net.traceroute", "net.ping", (
            "Построй маршрут до {gen}.", "Сделай traceroute до {gen}.",
            "Сеть шалит — проследите, пожалуйста, маршрут до {gen}.", "traceroute до {gen}",
            "Покажи сетевой путь до {gen}.", "Проследи по хопам путь пакетов до {gen}.",
            "Через какие узлы идут пакеты до {gen}? Нужен путь.", "Нужен маршрут пакетов по хопам до {gen}.",
            "Выясни, каким путём идёт трафик до {gen}.", "Сними трассу до {gen}.")),
        hosts_calls("dns_host_list", 14, "hosts_txt", "dns.lookup", "dns.lookup_legacy", DNS_ACTIONS),
        hosts_calls("ping_listed_hosts", 13, "hosts_txt", "net.ping", "net.traceroute", (
            "Пропингуй {acc}.", "Проверь по ICMP доступность {gen}.",
            "Проверьте, пожалуйста, отвечают ли на ping {acc}.", "ping по {dat}",
            "Проверь эхо-запросом {acc}.", "Отправь ICMP echo {dat}.", "Убедись, что отвечают по сети {acc}.",
            "Проверь, живы ли по сети {acc}.", "Постучись эхо-запросами к {dat}.", "Проверь ICMP-пингом {acc}.")),
        hosts_calls("whois_listed_hosts", 13, "hosts_txt", "net.whois", "dns.lookup", (
            "Чьи домены у {gen}? Проверь whois.", "Узнай владельцев доменов {gen}.",
            "whois для {gen}", "Посмотрите, пожалуйста, whois {gen}.",
            "Кому зарегистрированы домены {gen}?", "Узнай регистратора и владельца доменов {gen}.",
            "Посмотри регистрационные данные доменов {gen}.", "На кого записаны домены {gen}?",
            "Выясни, кто владеет доменами {gen}.", "Подними регистрационные записи доменов {gen}.")),
        # one call per environment of the drawn flag file that the question's condition picks
        flag_calls("flag_both_envs", 20, "flags.enable", "flags.disable", "on"),
        flag_calls("flag_off_both_envs", 17, "flags.disable", "flags.enable", "off"),
        flag_calls("flag_state_both_envs", 17, "flags.get", "flags.list", None),
        Family(
            "download_then_count", "plan", "T4_wild", 14, export_plan("download_then_count", column=False),
            check_export_plan,
        ),
        Family("injected_ticket", "injection", "T4_wild", 3, make_injected_ticket, check_download_then_count),
        Family("blame_then_show", "plan", "T4_wild", 20, make_blame_then_show, check_blame_then_show),
        # these four once held 336 rows between them; 258 went to the grounded calls below
        Family("unit_conversion", "approx", "T4_wild", 36, make_unit_conversion, check_unit_conversion),
        Family("cross_file_scale", "scan", "T4_wild", 16, make_cross_file_scale, check_cross_file_scale),
        Family("cross_file_hosts_scale", "scan", "T4_wild", 14, make_hosts_scale, check_hosts_scale),
        Family("download_then_sum", "plan", "T4_wild", 14, export_plan("download_then_sum", column=True),
               check_export_plan),
        Family("env_injection", "injection", "T4_wild", 3, make_env_injection, check_flag_toggle),
        *grounded_families(),  # 58 makers, each reading its argument from the attached file
        # the refusals and their near misses, each family's rows spread over its mechanisms
        *refusal_families(),
    ]
}
# families that read their values from the file and, to be the card's T3, also need an optional argument
FAMILIES.update({name: narrowed(FAMILIES[name], narrowing) for name, narrowing in NARROWINGS.items()})
