-- A client reference is optional, and many senders never set one. The search index on it held an entry for every
-- message, NULL included (about 100 bytes of WAL and 70 of storage per message); every search by reference names
-- one, which the planner proves implies NOT NULL, so only messages with a reference need an entry.
-- On a database with many messages this rebuilds the index on every partition under a lock that holds off accepts for
-- the build's duration: run it in a quiet moment.
DROP INDEX messages_reference_id;
CREATE INDEX messages_reference_id ON messages (reference, id) WHERE reference IS NOT NULL;
