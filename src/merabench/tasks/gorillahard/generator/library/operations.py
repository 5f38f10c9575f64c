"""What the other providers call each operation: one server's `table.mean` is another's
`sheet.average` and a third's `tabular.column_mean`. Real APIs name one capability in their own
words, so a tool recalled from one catalog by its verb is not found in the next by that verb; it
has to be read off what the tools do.

A line is a library name and the operation under the first and the second other provider. Within
one namespace no two tools share an operation name under any provider (tests/tasks/gorillahard
checks it), so every served name reads back to exactly one library tool.
"""

from __future__ import annotations

_TABLE = """
table.mean average column_mean
table.median middle_value column_median
table.sum total column_sum
table.sum_legacy total_legacy column_sum_v1
table.row_count count_rows record_count
table.column_count count_columns field_count
table.max maximum column_max
table.min minimum column_min
table.filter_eq rows_where select_equal
table.group_count tally value_counts
table.unique distinct distinct_values
table.sort order_by sorted_rows
table.to_json as_json export_json
logs.count count_matches match_count
logs.grep search find_lines
logs.window context around_line
logs.tail last_lines read_tail
logs.errors_per_hour hourly_counts per_hour
logs.head first_lines read_head
logs.rotate archive roll_over
logs.follow stream watch
files.read_lines lines read_range
files.stat info metadata
files.word_count count_words words
files.head first_lines peek
files.checksum hash compute_checksum
files.copy duplicate cp
files.move rename mv
files.delete remove rm
files.encoding detect_encoding charset
files.digest content_hash sum_content
files.fingerprint content_print identity_hash
files.verify_checksum check_hash compare_checksum
files.checksum_history hash_history past_checksums
http.download fetch_file save_url
http.get_json get request_json
http.post post_json send_json
http.head headers fetch_headers
http.put put_json replace_json
http.post_form submit_form send_form
http.status status_code probe
tracker.create_issue new_ticket open_issue
tracker.comment add_comment note
tracker.close_issue close resolve
tracker.assign set_assignee assign_to
tracker.search find query
tracker.reopen reopen_ticket restore
tracker.link relate link_issues
git.blame annotate line_author
git.show commit_info show_commit
git.log history commits
git.diff compare changes_between
git.revert undo_commit revert_commit
git.tag create_tag add_tag
git.branch create_branch new_branch
git.cherry_pick apply_commit pick
dns.lookup resolve a_records
dns.lookup_cached resolve_cached cached_records
dns.lookup_legacy resolve_legacy a_records_v1
dns.set_record upsert put_record
dns.delete_record remove_record drop_record
dns.reverse ptr reverse_lookup
dns.ttl record_ttl get_ttl
dns.unpublish withdraw unlist_record
dns.retract pull_record zone_remove
dns.lock_record freeze_record protect_record
dns.deleted_records removed_records deletion_log
k8s.scale set_replicas resize
k8s.restart rollout_restart restart_pods
k8s.logs pod_logs deployment_logs
k8s.status rollout_status deployment_status
k8s.rollback undo_rollout revert
k8s.set_image update_image change_image
k8s.describe_pod pod_info inspect_pod
k8s.delete_pod remove_pod kill_pod
flags.enable turn_on activate
flags.disable turn_off deactivate
flags.get state read_flag
flags.rollout gradual percent_rollout
flags.list all_flags list_flags
flags.delete remove remove_flag
billing.refund return_payment issue_refund
billing.invoice_get get_invoice invoice
billing.invoice_list invoices list_invoices
billing.invoice_void void_invoice cancel_invoice
billing.balance account_balance customer_balance
billing.credit_note issue_credit credit_memo
asr.transcribe_fast quick_text transcript_fast
asr.transcribe_accurate precise_text transcript_precise
asr.detect_language spoken_language identify_language
asr.diarize speakers split_speakers
tts.synthesize speak text_to_speech
db.delete_user remove_user drop_user
db.query_readonly select read_query
db.count_rows table_rows row_total
db.backup snapshot_table dump_table
db.vacuum cleanup compact_table
db.explain query_plan explain_query
db.list_tables tables show_tables
config.set_timeout timeout set_client_timeout
config.set_retries retries set_retry_policy
config.get read_setting value
config.reload refresh reread
config.diff compare_envs env_diff
queue.publish send enqueue
queue.purge clear drain_all
queue.depth size message_count
queue.peek preview look
queue.create new_queue declare
queue.move_dead redrive requeue_dead
queue.resize set_capacity set_max_size
queue.flush wipe discard_all
queue.empty throw_out dump_all
queue.purge_status clear_progress purge_progress
queue.purge_schedule clear_schedule purge_plan
perm.grant assign_role add_role
perm.revoke remove_role drop_role
perm.list roles user_roles
perm.audit role_history role_log
perm.check has_permission can
perm.temporary_grant grant_for timed_role
trace.get fetch span_tree
trace.search find query
trace.compare diff compare_traces
trace.slowest top_slow slow_traces
trace.annotate comment add_note
trace.remark leave_remark jot
trace.note attach_note tag_note
trace.annotations comments notes_of
trace.annotate_rules note_rules auto_rules
metrics.query value read_metric
metrics.alert_create new_alert add_alert_rule
metrics.list series list_metrics
metrics.anomalies outliers detect_anomalies
metrics.export to_csv dump
mail.send send_message deliver
mail.search find find_messages
mail.draft compose new_draft
mail.forward forward_message resend
mail.unsubscribe opt_out remove_subscriber
storage.upload put upload_file
storage.list objects list_objects
storage.delete remove delete_object
storage.presign signed_url temp_link
storage.copy copy_object duplicate
storage.archive_hot archive_standard park_standard
storage.archive_cold archive_deep park_deep
storage.expunge erase purge_object
storage.discard wipe scrap
storage.restore_deleted undelete recover
storage.delete_protection protect lock_bucket
secrets.get read fetch_secret
secrets.rotate renew regenerate
secrets.list names list_secrets
secrets.revoke invalidate disable_secret
cron.schedule add_job create_job
cron.list jobs list_jobs
cron.remove delete_job unschedule
cron.run_now trigger run_job
cron.pause suspend hold
search.docs find query_docs
search.reindex rebuild_index refresh_index
search.suggest autocomplete completions
search.index_status indexing_state index_health
calendar.create_event new_meeting schedule_meeting
calendar.free_slots availability find_time
calendar.cancel cancel_meeting drop_event
calendar.invite add_attendee invite_user
code.lint check static_check
code.find_symbol definition locate
code.run_tests test pytest
code.format reformat auto_format
code.complexity cyclomatic complexity_report
code.coverage test_coverage coverage_report
code.dependencies imports list_imports
code.prettify beautify style_apply
code.restyle tidy normalize_style
code.format_check check_style style_ok
code.format_diff style_diff preview_format
cache.get read fetch_key
cache.invalidate evict drop_key
cache.stats hit_rate cache_stats
cache.flush_all clear_all wipe_all
cache.warmup warm preheat
cache.preload fill_ahead load_ahead
cache.prime seed_data prefill
cache.warmup_history warm_history preheat_log
cache.warmup_schedule warm_schedule preheat_plan
backup.create take_snapshot new_backup
backup.restore recover restore_volume
backup.list snapshots list_backups
backup.verify check_integrity validate
backup.prune cleanup trim
server.restart reboot restart_host
server.drain cordon drain_host
server.decommission retire remove_host
server.reboot_scheduled reboot_later maintenance_reboot
server.inventory details host_record
server.uptime running_time host_uptime
net.check_port port_open tcp_check
net.ping icmp reachable
net.traceroute route trace_path
net.resolve_port port_service who_listens
net.whois owner domain_owner
deps.check_vulns vulnerabilities audit
deps.latest_version newest latest_release
deps.license license_info package_license
deps.upgrade_plan upgrade_path update_plan
deps.tree dependency_tree resolve_tree
registry.scan_image scan vuln_scan
registry.pull download pull_image
registry.list_tags tags image_tags
registry.delete_tag remove_tag drop_tag
registry.copy replicate copy_image
registry.untag detach_tag unlink_tag
registry.drop_label strip_tag clear_tag
registry.protect_tag lock_tag pin_tag
registry.tag_history tag_log tag_events
"""

OPERATIONS: dict[str, tuple[str, ...]] = {
    name: tuple(ops) for name, *ops in (line.split() for line in _TABLE.strip().splitlines())}


# How the first and the second other provider describe each tool: the same capability, told in the
# provider's own words (a same-capability pair alike, so that only its caveat tells it apart; an
# old version still says that it is one).
_DESCRIBED = """
table.mean | Среднее значение по числовой колонке таблицы. | Вычисляет арифметическое среднее чисел в столбце.
table.median | Медианное значение числовой колонки. | Находит медиану чисел в столбце таблицы.
table.sum | Итог по числовой колонке таблицы. | Складывает все числа столбца и возвращает сумму.
table.sum_legacy | Итог по колонке (прежняя версия). | Складывает числа столбца; старая реализация.
table.row_count | Сколько строк с данными в таблице, заголовок не считается. | Подсчитывает записи таблицы без строки заголовка.
table.column_count | Сколько колонок в таблице. | Подсчитывает столбцы таблицы.
table.max | Наибольшее значение числовой колонки. | Находит максимум среди чисел столбца.
table.min | Наименьшее значение числовой колонки. | Находит минимум среди чисел столбца.
table.filter_eq | Отбирает строки таблицы, где в колонке стоит заданное значение. | Возвращает записи, у которых значение столбца совпадает с указанным.
table.group_count | Сколько строк приходится на каждое значение колонки. | Группирует строки по значению столбца и считает их.
table.unique | Различные значения колонки. | Возвращает значения столбца без повторов.
table.sort | Строки таблицы, упорядоченные по колонке. | Сортирует таблицу по значениям столбца.
table.to_json | Выдаёт таблицу в формате JSON. | Конвертирует строки таблицы в JSON.
logs.count | Сколько строк журнала содержат подстроку. | Подсчитывает записи журнала, в которых встречается подстрока.
logs.grep | Находит строки журнала с подстрокой и выдаёт их. | Выбирает из журнала записи, где встречается подстрока.
logs.window | Фрагмент журнала вокруг строки с указанным номером. | Выдаёт строки журнала до и после строки с заданным номером.
logs.tail | Выдаёт n строк из конца журнала. | Конец журнала: последние n записей.
logs.errors_per_hour | Сколько записей журнала пришлось на каждый час (по умолчанию уровня ERROR). | Почасовой подсчёт записей журнала; без уровня считаются ERROR.
logs.head | Выдаёт n строк из начала журнала. | Начало журнала: первые n записей.
logs.rotate | Отправляет журнал в архив и заводит новый. | Сворачивает текущий журнал в архив и начинает чистый.
logs.follow | Следит за журналом и выдаёт новые строки. | Потоковая выдача строк, появляющихся в журнале.
files.read_lines | Выдаёт строки текстового файла с такой-то по такую-то. | Читает из текстового файла строки заданного диапазона.
files.stat | Сколько весит файл и когда он менялся. | Размер файла и время его последнего изменения.
files.word_count | Сколько слов в текстовом файле. | Подсчитывает слова текстового файла.
files.head | Выдаёт первые строки текстового файла. | Начало текстового файла: несколько первых строк.
files.checksum | Считает контрольную сумму файла. | Возвращает контрольную сумму содержимого файла.
files.copy | Делает копию файла. | Копирует файл в другое место.
files.move | Переносит файл в другое место. | Меняет расположение файла.
files.delete | Стирает файл. | Удаляет указанный файл.
files.encoding | Выясняет, в какой кодировке записан файл. | Определяет кодировку текста файла.
files.digest | Хеш содержимого, чтобы сверить копии файла. | Считает хеш файла для сравнения копий.
files.fingerprint | Хеш-отпечаток файла: у точных копий он одинаков. | Отпечаток содержимого файла (хеш), общий у одинаковых копий.
files.verify_checksum | Проверяет, совпадает ли файл с известной контрольной суммой. | Сравнивает контрольную сумму файла с ожидаемой.
files.checksum_history | Контрольные суммы файла, посчитанные раньше. | История ранее вычисленных контрольных сумм файла.
http.download | Загружает файл по адресу и отдаёт путь к локальной копии. | Скачивает файл по ссылке и возвращает, где он сохранён.
http.get_json | Делает GET-запрос и отдаёт тело ответа как JSON. | GET по адресу; ответ возвращается разобранным JSON.
http.post | Шлёт POST-запрос с JSON в теле. | Отправляет по адресу POST с телом в формате JSON.
http.head | Заголовки ответа по адресу, тело не загружается. | Запрашивает только заголовки ответа, без тела.
http.put | Шлёт PUT-запрос с JSON в теле. | Отправляет по адресу PUT с телом в формате JSON.
http.post_form | Шлёт форму POST-запросом. | Отправляет поля формы методом POST.
http.status | Какой код ответа отдаёт адрес. | Возвращает HTTP-код ответа по адресу.
tracker.create_issue | Заводит новую задачу в трекере. | Открывает в трекере новую задачу.
tracker.comment | Оставляет комментарий в задаче. | Пишет комментарий к задаче трекера.
tracker.close_issue | Закрывает задачу в трекере. | Переводит задачу в закрытые.
tracker.assign | Назначает задаче исполнителя. | Ставит исполнителя на задачу.
tracker.search | Находит задачи по тексту. | Поиск задач трекера по словам.
tracker.reopen | Снова открывает закрытую задачу. | Возвращает задачу в работу.
tracker.link | Связывает задачу с другой. | Создаёт связь между двумя задачами.
git.blame | Хеш коммита, который последним менял строку файла. | Определяет, каким коммитом последний раз изменена строка файла.
git.show | Изменения, внесённые коммитом. | Выводит, что поменял коммит.
git.log | Недавние коммиты ветки. | История последних коммитов в ветке.
git.diff | Чем различаются два коммита. | Показывает разницу между двумя коммитами.
git.revert | Отменяет коммит обратным коммитом. | Создаёт коммит, отменяющий изменения указанного.
git.tag | Ставит на коммит тег. | Помечает коммит тегом.
git.branch | Заводит новую ветку. | Создаёт ветку от коммита.
git.cherry_pick | Копирует коммит в текущую ветку. | Применяет изменения коммита к текущей ветке.
dns.lookup | A-записи домена. | Находит A-записи доменного имени.
dns.lookup_cached | A-записи домена из локального кеша резолвера. | Отдаёт A-записи домена, сохранённые в кеше резолвера.
dns.lookup_legacy | A-записи домена (прежняя версия). | Находит A-записи домена; старая реализация.
dns.set_record | Заводит A-запись или меняет существующую. | Создаёт A-запись домена либо обновляет её.
dns.delete_record | Убирает A-запись. | Стирает A-запись домена.
dns.reverse | PTR-запись для адреса. | Обратное разрешение: имя по IP-адресу.
dns.ttl | Время жизни (TTL) записи домена. | Возвращает TTL записи домена.
dns.unpublish | Убирает A-запись домена из опубликованной зоны. | Снимает с публикации A-запись домена.
dns.retract | Изымает адресную запись домена из зоны. | Удаляет из зоны DNS адресную запись домена.
dns.lock_record | Защищает A-запись домена от удаления и изменений. | Блокирует A-запись домена: её нельзя ни удалить, ни поменять.
dns.deleted_records | A-записи зоны, удалённые за последний месяц. | Какие A-записи зоны стёрли за месяц.
k8s.scale | Задаёт deployment новое число реплик. | Изменяет количество реплик deployment.
k8s.restart | Перезапуск всех подов deployment. | Заново запускает каждый под deployment.
k8s.logs | Логи подов deployment. | Выдаёт журналы подов deployment.
k8s.status | В каком состоянии deployment. | Возвращает состояние deployment.
k8s.rollback | Возвращает deployment к предыдущей версии. | Откатывает deployment на прошлую версию.
k8s.set_image | Задаёт deployment другой образ. | Заменяет образ deployment.
k8s.describe_pod | Подробности о поде. | Описывает под.
k8s.delete_pod | Удаляет под, контроллер поднимет его заново. | Убирает под; контроллер создаст новый.
flags.enable | Включает флаг функциональности. | Переводит фича-флаг во включённое состояние.
flags.disable | Выключает флаг функциональности. | Переводит фича-флаг в выключенное состояние.
flags.get | Текущее состояние флага функциональности. | Возвращает, включён ли фича-флаг.
flags.rollout | Включает флаг для части пользователей. | Раскатывает фича-флаг на долю пользователей.
flags.list | Фича-флаги окружения, все сразу. | Перечисляет все фича-флаги окружения.
flags.delete | Стирает фича-флаг. | Удаляет флаг функциональности.
billing.refund | Возвращает клиенту деньги по счёту. | Оформляет возврат средств по счёту.
billing.invoice_get | Счёт по его номеру. | Находит счёт по номеру.
billing.invoice_list | Все счета клиента. | Перечисляет счета клиента.
billing.invoice_void | Аннулирует счёт, который ещё не оплачен. | Отменяет неоплаченный счёт.
billing.balance | Остаток на счету клиента. | Текущий баланс клиента.
billing.credit_note | Выписывает кредит-ноту по счёту. | Создаёт кредит-ноту к счёту.
asr.transcribe_fast | Переводит речь из аудиофайла в текст. | Расшифровывает речь аудиозаписи в текст.
asr.transcribe_accurate | Переводит речь из аудиофайла в текст. | Расшифровывает речь аудиозаписи в текст.
asr.detect_language | На каком языке говорят в аудиофайле. | Определяет язык речи аудиозаписи.
asr.diarize | Делит запись на реплики разных говорящих. | Размечает, кто из говорящих когда говорит.
tts.synthesize | Озвучивает текст. | Превращает текст в речь.
db.delete_user | Стирает пользователя из базы. | Удаляет запись пользователя в базе.
db.query_readonly | Выполняет SELECT-запрос без права на запись. | Запрос на чтение (только SELECT).
db.count_rows | Сколько строк в таблице базы. | Подсчитывает строки таблицы базы данных.
db.backup | Снимок таблицы базы данных. | Сохраняет копию таблицы базы.
db.vacuum | Вычищает из таблицы мёртвые строки. | Очистка таблицы базы от мёртвых строк.
db.explain | Как база будет выполнять запрос. | Показывает план выполнения запроса.
db.list_tables | Список таблиц базы. | Перечисляет таблицы базы данных.
config.set_timeout | Устанавливает таймаут клиента сервиса. | Меняет время ожидания клиента сервиса.
config.set_retries | Устанавливает, сколько раз клиент сервиса повторяет запрос. | Меняет число повторных попыток клиента сервиса.
config.get | Значение настройки сервиса сейчас. | Возвращает текущее значение параметра сервиса.
config.reload | Заново читает настройки сервиса. | Перезагружает конфигурацию сервиса.
config.diff | Чем настройки двух окружений различаются. | Сравнивает настройки сервиса в двух окружениях.
queue.publish | Кладёт сообщение в очередь. | Отправляет сообщение в очередь.
queue.purge | Стирает из очереди все сообщения. | Очищает очередь от всех сообщений.
queue.depth | Сколько сообщений в очереди. | Длина очереди в сообщениях.
queue.peek | Первые сообщения очереди; сами сообщения остаются в ней. | Просматривает начало очереди, ничего не забирая.
queue.create | Заводит очередь. | Создаёт новую очередь.
queue.move_dead | Переносит недоставленные сообщения обратно в рабочую очередь. | Возвращает сообщения из очереди недоставленных в основную.
queue.resize | Задаёт очереди другой предельный размер. | Меняет предельную длину очереди.
queue.flush | Опорожняет очередь: сообщения пропадают, так и не дойдя до получателей. | Сбрасывает всё содержимое очереди, получатели его не увидят.
queue.empty | Избавляется от всего, что скопилось в очереди. | Вычищает из очереди всё накопленное.
queue.purge_status | Как идёт очистка очереди: сколько сообщений уже стёрто. | Прогресс очистки очереди.
queue.purge_schedule | Расписание плановой очистки очереди. | Когда по расписанию очищается очередь.
perm.grant | Даёт пользователю роль. | Назначает пользователю роль.
perm.revoke | Забирает у пользователя роль. | Снимает с пользователя роль.
perm.list | Какие роли у пользователя. | Перечисляет роли пользователя.
perm.audit | История изменений ролей пользователя. | Кто и когда менял роли пользователя.
perm.check | Есть ли у пользователя данное право. | Проверяет право пользователя.
perm.temporary_grant | Даёт роль на ограниченное время. | Назначает роль на несколько часов.
trace.get | Трасса запроса по её идентификатору. | Находит трассу запроса по идентификатору.
trace.search | Находит трассы сервиса не короче заданной длительности. | Поиск трасс по сервису и нижней границе длительности.
trace.compare | Сопоставляет две трассы. | Показывает различия двух трасс.
trace.slowest | Самые долгие трассы сервиса за последние сутки. | Медленнейшие трассы сервиса за сутки.
trace.annotate | Добавляет комментарий к трассе. | Пишет к трассе комментарий.
trace.remark | Оставляет к трассе запроса заметку для коллег. | Заметка коллегам на трассе запроса.
trace.note | Прикрепляет к трассе запроса пометку текстом. | Добавляет на трассу запроса текстовую пометку.
trace.annotations | Заметки, оставленные на трассе запроса. | Какие заметки есть у трассы запроса.
trace.annotate_rules | По каким правилам трассы помечаются сами. | Правила автоматической разметки трасс.
metrics.query | Значение метрики за указанный период. | Возвращает метрику за несколько часов.
metrics.alert_create | Заводит правило оповещения по метрике. | Создаёт оповещение при пересечении порога метрики.
metrics.list | Какие метрики есть у сервиса. | Перечисляет метрики сервиса.
metrics.anomalies | Аномалии метрики за последние сутки. | Выбросы метрики за сутки.
metrics.export | Выгружает метрику в файл CSV. | Экспорт значений метрики в CSV.
mail.send | Посылает письмо. | Отправляет электронное письмо.
mail.search | Находит письма по теме. | Поиск писем по теме.
mail.draft | Сохраняет черновик письма. | Создаёт письмо-черновик.
mail.forward | Пересылает письмо другому адресату. | Отправляет письмо дальше.
mail.unsubscribe | Исключает адрес из рассылки. | Отписывает адрес от списка рассылки.
storage.upload | Кладёт файл в объектное хранилище. | Загружает файл в бакет.
storage.list | Объекты бакета. | Перечисляет объекты бакета.
storage.delete | Удаляет объект бакета. | Стирает объект из бакета.
storage.presign | Временная ссылка на объект бакета. | Выдаёт ссылку на объект с ограниченным сроком.
storage.copy | Копирует объект в другой бакет. | Переносит копию объекта между бакетами.
storage.archive_hot | Отправляет файл в архивное хранилище. | Архивирует файл в хранилище.
storage.archive_cold | Отправляет файл в архивное хранилище. | Архивирует файл в хранилище.
storage.expunge | Убирает объект из бакета насовсем. | Окончательно изымает объект из бакета.
storage.discard | Уничтожает объект в бакете, вернуть его будет нельзя. | Стирает объект бакета безвозвратно.
storage.restore_deleted | Возвращает удалённый объект обратно в бакет. | Восстанавливает объект, удалённый из бакета.
storage.delete_protection | Защищает объекты бакета от удаления. | Запрещает удалять объекты бакета.
secrets.get | Значение секрета по имени. | Читает секрет с указанным именем.
secrets.rotate | Выпускает секрет заново. | Обновляет секрет, выдавая новое значение.
secrets.list | Какие секреты есть у сервиса. | Перечисляет имена секретов сервиса.
secrets.revoke | Аннулирует секрет. | Делает секрет недействительным.
cron.schedule | Ставит задачу в расписание. | Добавляет команду в расписание.
cron.list | Задачи в расписании. | Перечисляет задачи по расписанию.
cron.remove | Убирает задачу из расписания. | Удаляет задачу расписания.
cron.run_now | Запускает задачу сейчас, не дожидаясь расписания. | Внеплановый запуск задачи.
cron.pause | Ставит задачу расписания на паузу. | Временно останавливает задачу по расписанию.
search.docs | Ищет по всему тексту базы знаний. | Полнотекстовый поиск в базе знаний.
search.reindex | Заново индексирует раздел базы знаний. | Перестраивает индекс раздела базы знаний.
search.suggest | Варианты продолжения поискового запроса. | Подсказывает поисковые запросы.
search.index_status | В каком состоянии индекс раздела. | Возвращает состояние индекса раздела.
calendar.create_event | Назначает встречу в календаре. | Создаёт в календаре событие.
calendar.free_slots | Когда участники свободны. | Свободные окна в календарях участников.
calendar.cancel | Отменяет назначенную встречу. | Снимает встречу из календаря.
calendar.invite | Зовёт участника на встречу. | Добавляет участника во встречу.
code.lint | Проверяет файл исходного кода линтером. | Прогоняет линтер по файлу кода.
code.find_symbol | Находит, где определена функция или класс. | Поиск определения функции или класса.
code.run_tests | Прогоняет тесты модуля. | Выполняет тесты модуля.
code.format | Приводит файл исходного кода к единому оформлению. | Форматирует исходный код файла.
code.complexity | Цикломатическая сложность каждой функции файла. | Считает цикломатическую сложность функций файла.
code.coverage | Насколько модуль покрыт тестами. | Покрытие кода модуля тестами.
code.dependencies | Что импортирует модуль. | Перечисляет импорты модуля.
code.prettify | Перерабатывает файл исходного кода под стиль оформления проекта. | Переписывает файл кода по правилам оформления проекта.
code.restyle | Приводит в порядок отступы, кавычки и переносы строк в файле кода. | Правит отступы, кавычки и переносы в файле кода.
code.format_check | Проверяет, что файл отформатирован, ничего в нём не меняя. | Отформатирован ли файл (сам файл не меняется).
code.format_diff | Что поменяло бы форматирование; файл остаётся как есть. | Показывает изменения от форматирования, не трогая файл.
cache.get | Что лежит в кеше по ключу. | Значение, сохранённое в кеше под ключом.
cache.invalidate | Убирает ключ из кеша. | Стирает ключ в кеше.
cache.stats | Сколько обращений к кешу попадают в него. | Статистика попаданий и промахов кеша.
cache.flush_all | Стирает весь кеш. | Очищает кеш полностью.
cache.warmup | Прогрев кеша сервиса. | Заранее заполняет кеш сервиса.
cache.preload | Наполняет кеш сервиса часто нужными данными заранее. | Загодя заполняет кеш сервиса популярными данными.
cache.prime | Кладёт в кеш сервиса данные прежде, чем их запросят. | Заранее заносит в кеш сервиса данные до первых запросов.
cache.warmup_history | Когда кеш сервиса прогревали и сколько это длилось. | История прогревов кеша сервиса.
cache.warmup_schedule | Когда по плану прогревается кеш сервиса. | Плановые прогревы кеша сервиса.
backup.create | Делает резервную копию тома. | Создаёт снимок тома.
backup.restore | Возвращает том из резервной копии. | Восстанавливает том по снимку.
backup.list | Какие резервные копии есть у тома. | Перечисляет снимки тома.
backup.verify | Проверяет, цела ли резервная копия. | Контроль целостности снимка.
backup.prune | Стирает старые резервные копии тома. | Удаляет устаревшие снимки тома.
server.restart | Перезапускает сервер с указанным именем хоста. | Перезагружает сервер по имени хоста.
server.drain | Уводит с сервера нагрузку, не перезапуская его. | Выводит сервер из-под нагрузки без перезапуска.
server.decommission | Списывает сервер из эксплуатации. | Выводит сервер из работы насовсем.
server.reboot_scheduled | Перезагрузка сервера в ближайшее окно обслуживания. | Ставит перезагрузку сервера на ближайшее окно работ.
server.inventory | Карточка сервера из инвентаря. | Сведения о сервере по инвентарю.
server.uptime | Сколько сервер работает без перезагрузки. | Время работы сервера с последней перезагрузки.
net.check_port | Принимает ли хост соединения на порту. | Проверяет, открыт ли порт на хосте.
net.ping | Доступен ли хост по ICMP. | Пингует хост.
net.traceroute | Путь пакетов до хоста. | Трассирует маршрут до хоста.
net.resolve_port | Какой сервис слушает порт на хосте. | Определяет сервис на порту хоста.
net.whois | Кому принадлежит домен. | Данные о владельце домена.
deps.check_vulns | Известные уязвимости указанной версии пакета. | Проверяет версию пакета на известные уязвимости.
deps.latest_version | Самая новая версия пакета. | Возвращает последнюю версию пакета.
deps.license | Под какой лицензией пакет. | Лицензия, под которой распространяется пакет.
deps.upgrade_plan | План перехода пакета на другую версию, по умолчанию на последнюю. | Как обновить пакет (по умолчанию до последней версии).
deps.tree | Все зависимости пакета деревом. | Строит дерево зависимостей пакета.
registry.scan_image | Проверяет образ контейнера на уязвимости. | Ищет уязвимости в образе контейнера.
registry.pull | Загружает образ контейнера. | Скачивает образ из реестра.
registry.list_tags | Какие теги у образа в реестре. | Перечисляет теги образа в реестре.
registry.delete_tag | Стирает тег образа. | Удаляет у образа тег.
registry.copy | Переносит копию образа в другой реестр. | Делает копию образа в другом реестре.
registry.untag | Убирает с образа в реестре тег: по нему образ уже не скачать. | Снимает тег образа в реестре, скачать по нему больше нельзя.
registry.drop_label | Удаляет тег образа из реестра, сам образ остаётся. | Снимает тег образа в реестре (образ не затрагивается).
registry.protect_tag | Не даёт удалить или перезаписать тег образа. | Ставит на тег образа защиту от удаления и перезаписи.
registry.tag_history | Кто и когда ставил и снимал теги образа. | История тегов образа.
"""

DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    name.strip(): tuple(part.strip() for part in rest)
    for name, *rest in (line.split("|") for line in _DESCRIBED.strip().splitlines())}
