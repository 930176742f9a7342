-- A message's validity (issue 26): the instant after which it must not leave sendlog, from the client's validUntil or
-- ttlSeconds. Part of the acceptance, so a column of the message row, written once and never updated; null when the
-- message has none. A nullable column without a default is a catalog change only: existing partitions are not
-- rewritten. No index: a worker reads it with the message at its claim, a timer with the messages a publication
-- watches. EXPIRED and CANCELLED are appended events (type codes 13 and 14, final statuses 6 and 7, which V8 already
-- reserved for them); they carry no columns of their own.
ALTER TABLE messages ADD COLUMN valid_until timestamp with time zone;
