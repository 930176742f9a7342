package dev.sendlog.service.publish;

/** A shard this process holds, the epoch it holds it at (the fencing token), and its cursors as last written. */
public record ShardLease(short shard, long epoch, TailCursor publishCursor) {}
