package dev.sendlog.service.log;

/** A fenced write found that this process no longer holds the shard's lease at the epoch it used. */
public final class LeaseLostException extends RuntimeException {
    private final short shard;

    public LeaseLostException(short shard, long epoch) {
        super("lease of shard " + shard + " at epoch " + epoch + " is no longer ours", null, false, false);
        this.shard = shard;
    }

    public short shard() {
        return shard;
    }
}
