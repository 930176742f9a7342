-- The sender id a message goes out with (issue 26): the client's "from", or its tenant's defaultSender. Part of the
-- acceptance, so a column of the message row, written once; null when neither names one (the provider's own default).
-- A nullable column without a default is a catalog change only: existing partitions are not rewritten.
ALTER TABLE messages ADD COLUMN sender varchar;
