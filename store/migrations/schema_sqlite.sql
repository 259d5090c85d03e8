-- The SQLite schema at revision 0014, as the migrations build it: written by
-- scripts/generate_sqlite_schema.py (see store/migrations/README.md); do not edit.
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
CREATE TABLE packs (
	id INTEGER NOT NULL, 
	"key" VARCHAR(128) NOT NULL, 
	title VARCHAR(256) NOT NULL, 
	version VARCHAR(32) NOT NULL, 
	lang VARCHAR(16) NOT NULL, 
	description TEXT NOT NULL, 
	lessons JSON NOT NULL, 
	tags JSON NOT NULL, 
	source_path TEXT NOT NULL, 
	content_hash VARCHAR(64) NOT NULL, 
	bundled BOOLEAN NOT NULL, 
	imported_at DATETIME NOT NULL, edition_of VARCHAR(128), 
	CONSTRAINT pk_packs PRIMARY KEY (id), 
	CONSTRAINT uq_packs_key UNIQUE ("key")
);
CREATE TABLE cards (
	id INTEGER NOT NULL, 
	pack_id INTEGER NOT NULL, 
	"key" VARCHAR(160) NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	title TEXT NOT NULL, 
	status VARCHAR(16), 
	prompt TEXT NOT NULL, 
	answer TEXT NOT NULL, 
	key_numbers JSON NOT NULL, 
	tip TEXT NOT NULL, 
	choices JSON NOT NULL, 
	explanation TEXT NOT NULL, 
	related JSON NOT NULL, 
	problem JSON, 
	problem_line INTEGER, 
	source_line INTEGER NOT NULL, 
	position INTEGER NOT NULL, 
	parent_id INTEGER, 
	tags JSON NOT NULL, 
	lessons JSON NOT NULL, 
	content_hash VARCHAR(64) NOT NULL, 
	retired BOOLEAN NOT NULL, 
	retired_at DATETIME, 
	CONSTRAINT pk_cards PRIMARY KEY (id), 
	CONSTRAINT fk_cards_pack_id_packs FOREIGN KEY(pack_id) REFERENCES packs (id), 
	CONSTRAINT fk_cards_parent_id_cards FOREIGN KEY(parent_id) REFERENCES cards (id), 
	CONSTRAINT uq_cards_pack_id_key UNIQUE (pack_id, "key")
);
CREATE INDEX ix_cards_retired ON cards (retired);
CREATE TABLE card_states (
	profile_id INTEGER NOT NULL, 
	card_id INTEGER NOT NULL, 
	repetitions INTEGER NOT NULL, 
	easiness_milli INTEGER NOT NULL, 
	interval_days INTEGER NOT NULL, 
	due_day DATE, 
	lapses INTEGER NOT NULL, 
	reviews INTEGER NOT NULL, 
	last_review_at DATETIME, 
	suspended BOOLEAN NOT NULL, 
	buried_until DATE, 
	leech BOOLEAN NOT NULL, fsrs JSON, 
	CONSTRAINT pk_card_states PRIMARY KEY (profile_id, card_id), 
	CONSTRAINT fk_card_states_card_id_cards FOREIGN KEY(card_id) REFERENCES cards (id), 
	CONSTRAINT fk_card_states_profile_id_profiles FOREIGN KEY(profile_id) REFERENCES profiles (id)
);
CREATE INDEX ix_card_states_due ON card_states (profile_id, due_day);
CREATE TABLE card_topics (
	card_id INTEGER NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	value VARCHAR(128) NOT NULL, 
	CONSTRAINT pk_card_topics PRIMARY KEY (card_id, kind, value), 
	CONSTRAINT fk_card_topics_card_id_cards FOREIGN KEY(card_id) REFERENCES cards (id)
);
CREATE INDEX ix_card_topics_topic ON card_topics (kind, value);
CREATE TABLE notes (
	profile_id INTEGER NOT NULL, 
	card_id INTEGER NOT NULL, 
	text TEXT NOT NULL, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT pk_notes PRIMARY KEY (profile_id, card_id), 
	CONSTRAINT fk_notes_card_id_cards FOREIGN KEY(card_id) REFERENCES cards (id), 
	CONSTRAINT fk_notes_profile_id_profiles FOREIGN KEY(profile_id) REFERENCES profiles (id)
);
CREATE TABLE review_log (
	id INTEGER NOT NULL, 
	profile_id INTEGER NOT NULL, 
	card_id INTEGER NOT NULL, 
	reviewed_at DATETIME NOT NULL, 
	study_day DATE NOT NULL, 
	quality INTEGER NOT NULL, 
	seconds FLOAT NOT NULL, 
	graded_by VARCHAR(8) NOT NULL, 
	moved_schedule BOOLEAN NOT NULL, 
	typed_answer TEXT, 
	template_id VARCHAR(160), 
	seed INTEGER, 
	params JSON, 
	expected TEXT, 
	diagnosis TEXT, 
	mistake VARCHAR(32), 
	prev_state JSON, reveal_seconds FLOAT, grade_seconds FLOAT, choice_seed INTEGER, choice_order VARCHAR(8), imported_id VARCHAR(64), interval_days INTEGER, easiness_milli INTEGER, practice BOOLEAN DEFAULT 0 NOT NULL, 
	CONSTRAINT pk_review_log PRIMARY KEY (id), 
	CONSTRAINT fk_review_log_card_id_cards FOREIGN KEY(card_id) REFERENCES cards (id), 
	CONSTRAINT fk_review_log_profile_id_profiles FOREIGN KEY(profile_id) REFERENCES profiles (id)
);
CREATE INDEX ix_review_log_card ON review_log (card_id);
CREATE INDEX ix_review_log_profile_day ON review_log (profile_id, study_day);
CREATE INDEX ix_review_log_profile_time ON review_log (profile_id, reviewed_at);
CREATE TABLE settings (
	"key" VARCHAR(64) NOT NULL, 
	value TEXT NOT NULL, 
	CONSTRAINT pk_settings PRIMARY KEY ("key")
);
CREATE TABLE topic_days (
	profile_id INTEGER NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	value VARCHAR(128) NOT NULL, 
	study_day DATE NOT NULL, 
	reviews INTEGER NOT NULL, 
	passed INTEGER NOT NULL, 
	firsts INTEGER NOT NULL, 
	failed_firsts INTEGER NOT NULL, 
	seconds FLOAT NOT NULL, 
	diagnosed INTEGER NOT NULL, 
	CONSTRAINT pk_topic_days PRIMARY KEY (profile_id, kind, value, study_day)
);
CREATE TABLE topic_states (
	profile_id INTEGER NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	value VARCHAR(128) NOT NULL, 
	due_day DATE NOT NULL, 
	suspended BOOLEAN NOT NULL, 
	cards INTEGER NOT NULL, 
	seen INTEGER NOT NULL, 
	reviews INTEGER NOT NULL, 
	lapses INTEGER NOT NULL, 
	easiness_sum INTEGER NOT NULL, 
	leeches INTEGER NOT NULL, 
	CONSTRAINT pk_topic_states PRIMARY KEY (profile_id, kind, value, due_day, suspended)
);
CREATE TABLE topic_cards (
	kind VARCHAR(16) NOT NULL, 
	value VARCHAR(128) NOT NULL, 
	cards INTEGER NOT NULL, 
	CONSTRAINT pk_topic_cards PRIMARY KEY (kind, value)
);
CREATE INDEX ix_review_log_mistakes ON review_log (profile_id, study_day, mistake) WHERE mistake IS NOT NULL;
CREATE TRIGGER rollup_review_insert AFTER INSERT ON review_log BEGIN INSERT INTO topic_days (profile_id, kind, value, study_day, reviews, passed, firsts, failed_firsts, seconds, diagnosed) SELECT NEW.profile_id, ct.kind, ct.value, NEW.study_day, +1, +CAST(NEW.quality >= 3 AS INTEGER), +CAST(NEW.moved_schedule AS INTEGER), +CAST(NEW.moved_schedule AND NEW.quality < 3 AS INTEGER), +NEW.seconds, +CAST(NEW.mistake IS NOT NULL AS INTEGER) FROM card_topics AS ct WHERE ct.card_id = NEW.card_id ORDER BY 1, 2, 3, 4 ON CONFLICT (profile_id, kind, value, study_day) DO UPDATE SET reviews = topic_days.reviews + excluded.reviews, passed = topic_days.passed + excluded.passed, firsts = topic_days.firsts + excluded.firsts, failed_firsts = topic_days.failed_firsts + excluded.failed_firsts, seconds = topic_days.seconds + excluded.seconds, diagnosed = topic_days.diagnosed + excluded.diagnosed; END;
CREATE TRIGGER rollup_review_delete AFTER DELETE ON review_log BEGIN INSERT INTO topic_days (profile_id, kind, value, study_day, reviews, passed, firsts, failed_firsts, seconds, diagnosed) SELECT OLD.profile_id, ct.kind, ct.value, OLD.study_day, -1, -CAST(OLD.quality >= 3 AS INTEGER), -CAST(OLD.moved_schedule AS INTEGER), -CAST(OLD.moved_schedule AND OLD.quality < 3 AS INTEGER), -OLD.seconds, -CAST(OLD.mistake IS NOT NULL AS INTEGER) FROM card_topics AS ct WHERE ct.card_id = OLD.card_id ORDER BY 1, 2, 3, 4 ON CONFLICT (profile_id, kind, value, study_day) DO UPDATE SET reviews = topic_days.reviews + excluded.reviews, passed = topic_days.passed + excluded.passed, firsts = topic_days.firsts + excluded.firsts, failed_firsts = topic_days.failed_firsts + excluded.failed_firsts, seconds = topic_days.seconds + excluded.seconds, diagnosed = topic_days.diagnosed + excluded.diagnosed; END;
CREATE TRIGGER rollup_review_update AFTER UPDATE ON review_log BEGIN INSERT INTO topic_days (profile_id, kind, value, study_day, reviews, passed, firsts, failed_firsts, seconds, diagnosed) SELECT OLD.profile_id, ct.kind, ct.value, OLD.study_day, -1, -CAST(OLD.quality >= 3 AS INTEGER), -CAST(OLD.moved_schedule AS INTEGER), -CAST(OLD.moved_schedule AND OLD.quality < 3 AS INTEGER), -OLD.seconds, -CAST(OLD.mistake IS NOT NULL AS INTEGER) FROM card_topics AS ct WHERE ct.card_id = OLD.card_id ORDER BY 1, 2, 3, 4 ON CONFLICT (profile_id, kind, value, study_day) DO UPDATE SET reviews = topic_days.reviews + excluded.reviews, passed = topic_days.passed + excluded.passed, firsts = topic_days.firsts + excluded.firsts, failed_firsts = topic_days.failed_firsts + excluded.failed_firsts, seconds = topic_days.seconds + excluded.seconds, diagnosed = topic_days.diagnosed + excluded.diagnosed;INSERT INTO topic_days (profile_id, kind, value, study_day, reviews, passed, firsts, failed_firsts, seconds, diagnosed) SELECT NEW.profile_id, ct.kind, ct.value, NEW.study_day, +1, +CAST(NEW.quality >= 3 AS INTEGER), +CAST(NEW.moved_schedule AS INTEGER), +CAST(NEW.moved_schedule AND NEW.quality < 3 AS INTEGER), +NEW.seconds, +CAST(NEW.mistake IS NOT NULL AS INTEGER) FROM card_topics AS ct WHERE ct.card_id = NEW.card_id ORDER BY 1, 2, 3, 4 ON CONFLICT (profile_id, kind, value, study_day) DO UPDATE SET reviews = topic_days.reviews + excluded.reviews, passed = topic_days.passed + excluded.passed, firsts = topic_days.firsts + excluded.firsts, failed_firsts = topic_days.failed_firsts + excluded.failed_firsts, seconds = topic_days.seconds + excluded.seconds, diagnosed = topic_days.diagnosed + excluded.diagnosed; END;
CREATE TRIGGER rollup_state_insert AFTER INSERT ON card_states BEGIN INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT NEW.profile_id, ct.kind, ct.value, COALESCE(NEW.due_day, '9999-12-31'), NEW.suspended, +1, +CAST(NEW.reviews > 0 AS INTEGER), +NEW.reviews, +NEW.lapses, +(CASE WHEN NEW.reviews > 0 THEN NEW.easiness_milli ELSE 0 END), +CAST(NEW.leech AS INTEGER) FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id WHERE ct.card_id = NEW.card_id AND NOT c.retired ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches; END;
CREATE TRIGGER rollup_state_delete AFTER DELETE ON card_states BEGIN INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT OLD.profile_id, ct.kind, ct.value, COALESCE(OLD.due_day, '9999-12-31'), OLD.suspended, -1, -CAST(OLD.reviews > 0 AS INTEGER), -OLD.reviews, -OLD.lapses, -(CASE WHEN OLD.reviews > 0 THEN OLD.easiness_milli ELSE 0 END), -CAST(OLD.leech AS INTEGER) FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id WHERE ct.card_id = OLD.card_id AND NOT c.retired ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches; END;
CREATE TRIGGER rollup_state_update AFTER UPDATE ON card_states BEGIN INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT OLD.profile_id, ct.kind, ct.value, COALESCE(OLD.due_day, '9999-12-31'), OLD.suspended, -1, -CAST(OLD.reviews > 0 AS INTEGER), -OLD.reviews, -OLD.lapses, -(CASE WHEN OLD.reviews > 0 THEN OLD.easiness_milli ELSE 0 END), -CAST(OLD.leech AS INTEGER) FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id WHERE ct.card_id = OLD.card_id AND NOT c.retired ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches;INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT NEW.profile_id, ct.kind, ct.value, COALESCE(NEW.due_day, '9999-12-31'), NEW.suspended, +1, +CAST(NEW.reviews > 0 AS INTEGER), +NEW.reviews, +NEW.lapses, +(CASE WHEN NEW.reviews > 0 THEN NEW.easiness_milli ELSE 0 END), +CAST(NEW.leech AS INTEGER) FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id WHERE ct.card_id = NEW.card_id AND NOT c.retired ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches; END;
CREATE TRIGGER rollup_topic_insert AFTER INSERT ON card_topics BEGIN INSERT INTO topic_days (profile_id, kind, value, study_day, reviews, passed, firsts, failed_firsts, seconds, diagnosed) SELECT r.profile_id, NEW.kind, NEW.value, r.study_day, +COUNT(*), +SUM(CAST(r.quality >= 3 AS INTEGER)), +SUM(CAST(r.moved_schedule AS INTEGER)), +SUM(CAST(r.moved_schedule AND r.quality < 3 AS INTEGER)), +SUM(r.seconds), +SUM(CAST(r.mistake IS NOT NULL AS INTEGER)) FROM review_log AS r WHERE r.card_id = NEW.card_id GROUP BY r.profile_id, r.study_day ORDER BY 1, 2, 3, 4 ON CONFLICT (profile_id, kind, value, study_day) DO UPDATE SET reviews = topic_days.reviews + excluded.reviews, passed = topic_days.passed + excluded.passed, firsts = topic_days.firsts + excluded.firsts, failed_firsts = topic_days.failed_firsts + excluded.failed_firsts, seconds = topic_days.seconds + excluded.seconds, diagnosed = topic_days.diagnosed + excluded.diagnosed;INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT cs.profile_id, NEW.kind, NEW.value, COALESCE(cs.due_day, '9999-12-31'), cs.suspended, +1, +CAST(cs.reviews > 0 AS INTEGER), +cs.reviews, +cs.lapses, +(CASE WHEN cs.reviews > 0 THEN cs.easiness_milli ELSE 0 END), +CAST(cs.leech AS INTEGER) FROM card_states AS cs JOIN cards AS c ON c.id = cs.card_id WHERE cs.card_id = NEW.card_id AND NOT c.retired ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches;INSERT INTO topic_cards (kind, value, cards) SELECT NEW.kind, NEW.value, +1 FROM cards AS c WHERE c.id = NEW.card_id AND NOT c.retired ORDER BY 1, 2 ON CONFLICT (kind, value) DO UPDATE SET cards = topic_cards.cards + excluded.cards; END;
CREATE TRIGGER rollup_topic_delete AFTER DELETE ON card_topics BEGIN INSERT INTO topic_days (profile_id, kind, value, study_day, reviews, passed, firsts, failed_firsts, seconds, diagnosed) SELECT r.profile_id, OLD.kind, OLD.value, r.study_day, -COUNT(*), -SUM(CAST(r.quality >= 3 AS INTEGER)), -SUM(CAST(r.moved_schedule AS INTEGER)), -SUM(CAST(r.moved_schedule AND r.quality < 3 AS INTEGER)), -SUM(r.seconds), -SUM(CAST(r.mistake IS NOT NULL AS INTEGER)) FROM review_log AS r WHERE r.card_id = OLD.card_id GROUP BY r.profile_id, r.study_day ORDER BY 1, 2, 3, 4 ON CONFLICT (profile_id, kind, value, study_day) DO UPDATE SET reviews = topic_days.reviews + excluded.reviews, passed = topic_days.passed + excluded.passed, firsts = topic_days.firsts + excluded.firsts, failed_firsts = topic_days.failed_firsts + excluded.failed_firsts, seconds = topic_days.seconds + excluded.seconds, diagnosed = topic_days.diagnosed + excluded.diagnosed;INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT cs.profile_id, OLD.kind, OLD.value, COALESCE(cs.due_day, '9999-12-31'), cs.suspended, -1, -CAST(cs.reviews > 0 AS INTEGER), -cs.reviews, -cs.lapses, -(CASE WHEN cs.reviews > 0 THEN cs.easiness_milli ELSE 0 END), -CAST(cs.leech AS INTEGER) FROM card_states AS cs JOIN cards AS c ON c.id = cs.card_id WHERE cs.card_id = OLD.card_id AND NOT c.retired ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches;INSERT INTO topic_cards (kind, value, cards) SELECT OLD.kind, OLD.value, -1 FROM cards AS c WHERE c.id = OLD.card_id AND NOT c.retired ORDER BY 1, 2 ON CONFLICT (kind, value) DO UPDATE SET cards = topic_cards.cards + excluded.cards; END;
CREATE TRIGGER rollup_card_retire AFTER UPDATE OF retired ON cards WHEN NEW.retired AND NOT OLD.retired BEGIN INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT cs.profile_id, ct.kind, ct.value, COALESCE(cs.due_day, '9999-12-31'), cs.suspended, -1, -CAST(cs.reviews > 0 AS INTEGER), -cs.reviews, -cs.lapses, -(CASE WHEN cs.reviews > 0 THEN cs.easiness_milli ELSE 0 END), -CAST(cs.leech AS INTEGER) FROM card_states AS cs JOIN card_topics AS ct ON ct.card_id = cs.card_id WHERE cs.card_id = NEW.id ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches;INSERT INTO topic_cards (kind, value, cards) SELECT ct.kind, ct.value, -1 FROM card_topics AS ct WHERE ct.card_id = NEW.id ORDER BY 1, 2 ON CONFLICT (kind, value) DO UPDATE SET cards = topic_cards.cards + excluded.cards; END;
CREATE TRIGGER rollup_card_revive AFTER UPDATE OF retired ON cards WHEN OLD.retired AND NOT NEW.retired BEGIN INSERT INTO topic_states (profile_id, kind, value, due_day, suspended, cards, seen, reviews, lapses, easiness_sum, leeches) SELECT cs.profile_id, ct.kind, ct.value, COALESCE(cs.due_day, '9999-12-31'), cs.suspended, +1, +CAST(cs.reviews > 0 AS INTEGER), +cs.reviews, +cs.lapses, +(CASE WHEN cs.reviews > 0 THEN cs.easiness_milli ELSE 0 END), +CAST(cs.leech AS INTEGER) FROM card_states AS cs JOIN card_topics AS ct ON ct.card_id = cs.card_id WHERE cs.card_id = NEW.id ORDER BY 1, 2, 3, 4, 5 ON CONFLICT (profile_id, kind, value, due_day, suspended) DO UPDATE SET cards = topic_states.cards + excluded.cards, seen = topic_states.seen + excluded.seen, reviews = topic_states.reviews + excluded.reviews, lapses = topic_states.lapses + excluded.lapses, easiness_sum = topic_states.easiness_sum + excluded.easiness_sum, leeches = topic_states.leeches + excluded.leeches;INSERT INTO topic_cards (kind, value, cards) SELECT ct.kind, ct.value, +1 FROM card_topics AS ct WHERE ct.card_id = NEW.id ORDER BY 1, 2 ON CONFLICT (kind, value) DO UPDATE SET cards = topic_cards.cards + excluded.cards; END;
CREATE TABLE "profiles" (
	id INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	created_at DATETIME NOT NULL, 
	new_per_day INTEGER NOT NULL, 
	reviews_per_day INTEGER NOT NULL, 
	rollover_hour INTEGER NOT NULL, 
	answer_seconds INTEGER NOT NULL, 
	theme VARCHAR(16) NOT NULL, 
	options JSON DEFAULT '{}' NOT NULL, 
	CONSTRAINT pk_profiles PRIMARY KEY (id), 
	CONSTRAINT uq_profiles_name UNIQUE (name)
);
CREATE INDEX ix_card_states_card ON card_states (card_id);
CREATE INDEX ix_review_log_imported ON review_log (profile_id, imported_id) WHERE imported_id IS NOT NULL;
CREATE TABLE card_flags (
	profile_id INTEGER NOT NULL, 
	card_id INTEGER NOT NULL, 
	colour VARCHAR(16) NOT NULL, 
	CONSTRAINT pk_card_flags PRIMARY KEY (profile_id, card_id), 
	CONSTRAINT fk_card_flags_card_id_cards FOREIGN KEY(card_id) REFERENCES cards (id), 
	CONSTRAINT fk_card_flags_profile_id_profiles FOREIGN KEY(profile_id) REFERENCES profiles (id)
);
CREATE TABLE pack_settings (
	profile_id INTEGER NOT NULL, 
	pack_id INTEGER NOT NULL, 
	new_per_day INTEGER, 
	new_order VARCHAR(16), 
	CONSTRAINT pk_pack_settings PRIMARY KEY (profile_id, pack_id), 
	CONSTRAINT fk_pack_settings_pack_id_packs FOREIGN KEY(pack_id) REFERENCES packs (id), 
	CONSTRAINT fk_pack_settings_profile_id_profiles FOREIGN KEY(profile_id) REFERENCES profiles (id)
);
