-- Lanes (issue 29, fair shares): which shards each lane holds, kept by the database so that a stored shard never
-- changes lane. The first process that starts writes the normal and the high lane from its configuration; a tenant
-- given a weight later gets the shards after the last lane's; a lane is never moved or dropped (a tenant whose weight
-- is removed keeps its lane, so the messages in its shards are still published and sent).
CREATE TABLE lanes (
    lane        varchar(300) PRIMARY KEY,
    first_shard smallint NOT NULL UNIQUE CHECK (first_shard >= 0),
    shards      smallint NOT NULL CHECK (shards > 0)
);
