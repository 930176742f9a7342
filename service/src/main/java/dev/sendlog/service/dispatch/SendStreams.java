package dev.sendlog.service.dispatch;

import dev.sendlog.events.Lanes;
import dev.sendlog.events.Priority;
import dev.sendlog.service.queue.JobStream;

/**
 * The send streams of the two priority lanes: a message's work goes to the stream of its shard's lane. Each stream has
 * its own bound ({@code maxStreamEntries}) and its own workers, so a normal backlog that holds its stream at the bound
 * leaves the high stream free.
 */
public record SendStreams(Lanes lanes, JobStream normal, JobStream high) {
    /** One stream for both lanes: for tools and tests that publish without priorities. */
    public static SendStreams single(Lanes lanes, JobStream stream) {
        return new SendStreams(lanes, stream, stream);
    }

    public JobStream of(Priority priority) {
        return priority == Priority.HIGH ? high : normal;
    }

    public JobStream ofShard(short shard) {
        return of(lanes.priorityOf(shard));
    }
}
