package dev.sendlog.service.send;

import dev.sendlog.events.Lanes;
import dev.sendlog.service.queue.JobStream;
import java.util.HashMap;
import java.util.Map;

/**
 * The send streams of the lanes (normal, high, and each tenant's): a message's work goes to the stream of its shard's
 * lane. Each stream has its own bound ({@code maxStreamEntries}) and its own workers, so a backlog that holds one
 * lane's stream at the bound leaves the others free.
 */
public final class SendStreams {
    private final Lanes lanes;
    private final Map<String, JobStream> byLane;

    /** @param byLane a stream for every lane of {@code lanes}, by the lane's name */
    public SendStreams(Lanes lanes, Map<String, JobStream> byLane) {
        for (Lanes.Lane lane : lanes.all()) {
            if (!byLane.containsKey(lane.name())) {
                throw new IllegalArgumentException("no send stream for lane " + lane.name());
            }
        }
        this.lanes = lanes;
        this.byLane = Map.copyOf(byLane);
    }

    /** One stream for every lane: for tools and tests that publish without lanes. */
    public static SendStreams single(Lanes lanes, JobStream stream) {
        Map<String, JobStream> all = new HashMap<>();
        lanes.all().forEach(l -> all.put(l.name(), stream));
        return new SendStreams(lanes, all);
    }

    public Lanes lanes() {
        return lanes;
    }

    public JobStream of(Lanes.Lane lane) {
        return byLane.get(lane.name());
    }

    public JobStream ofShard(short shard) {
        return of(lanes.laneOf(shard));
    }
}
