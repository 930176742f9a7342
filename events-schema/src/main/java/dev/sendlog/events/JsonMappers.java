package dev.sendlog.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Object mappers for code that runs on virtual threads (send workers, stream consumers). Jackson's default buffer
 * pool is per thread, which a virtual thread that lives for one job never reuses: every parse and write would
 * allocate fresh buffers. These mappers share one concurrent pool instead.
 */
public final class JsonMappers {
    private JsonMappers() {}

    public static ObjectMapper pooled() {
        return new ObjectMapper(JsonFactory.builder()
                .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                .build());
    }
}
