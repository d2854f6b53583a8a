-- The fixed dataset of bench/miniflux, inserted into Miniflux's own schema
-- (made by its migrations): :users users, each with one category, :feeds
-- feeds and :entries entries per feed (half of them read), and one API key
-- per user, six enclosures per entry (X-Auth-Token: mf-bench-token-<n>, n = 1..users; users.csv).
-- Everything is a function of the row numbers: two builds give the same rows.
BEGIN;
INSERT INTO users (username, password, is_admin)
SELECT 'bench' || u, NULL, false FROM generate_series(1, :users) AS u;

INSERT INTO categories (user_id, title)
SELECT id, 'All' FROM users WHERE username LIKE 'bench%';

INSERT INTO api_keys (user_id, token, description)
SELECT id, 'mf-bench-token-' || substr(username, 6), 'tailgate bench'
FROM users WHERE username LIKE 'bench%';

INSERT INTO feeds (user_id, category_id, title, feed_url, site_url)
SELECT c.user_id, c.id, 'Feed ' || f, 'http://feeds.invalid/' || c.user_id || '/' || f || '.xml',
       'http://feeds.invalid/' || c.user_id || '/' || f
FROM categories c, generate_series(1, :feeds) AS f
ORDER BY c.user_id, f;

INSERT INTO entries (user_id, feed_id, hash, published_at, changed_at, created_at, title, url, author, content, status)
SELECT fd.user_id, fd.id, md5(fd.id || '/' || e),
       timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => e * 37 + fd.id::int),
       timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => e * 37 + fd.id::int),
       timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => e * 37 + fd.id::int),
       'Entry ' || e || ' of ' || fd.title, fd.site_url || '/entry/' || e, 'author' || (e % 7),
       '<p>' || repeat('Lorem ipsum dolor sit amet, entry ' || e || '. ', 20) || '</p>',
       CASE WHEN e % 2 = 0 THEN 'read'::entry_status ELSE 'unread'::entry_status END
FROM feeds fd, generate_series(1, :entries) AS e
ORDER BY fd.id, e;

-- Every entry has six enclosures (an episode's audio and five images):
-- each entries list fetches its entries' enclosures by entry_id.
INSERT INTO enclosures (user_id, entry_id, url, size, mime_type)
SELECT e.user_id, e.id, e.url || '/media/' || k || CASE k WHEN 1 THEN '.mp3' ELSE '.jpg' END,
       1000 * e.id + k, CASE k WHEN 1 THEN 'audio/mpeg' ELSE 'image/jpeg' END
FROM entries e, generate_series(1, :enclosures) AS k
ORDER BY e.id, k;
COMMIT;
