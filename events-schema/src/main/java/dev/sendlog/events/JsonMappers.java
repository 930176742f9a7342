package dev.sendlog.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Object mappers for code that runs on virtual threads (send workers, stream consumers, API requests). Jackson's
 * default buffer pool is per thread, which a virtual thread that lives for one job or one request never reuses: every
 * parse and write would allocate fresh buffers (on the API's request threads, 16 KB a request, a sixth of all the
 * process allocated under scripts/bench). These mappers share one concurrent pool instead.
 */
public final class JsonMappers {
    private JsonMappers() {}

    public static ObjectMapper pooled() {
        return new ObjectMapper(pooledFactory());
    }

    /** A JSON factory whose parsers and generators take their buffers from the shared pool. */
    public static JsonFactory pooledFactory() {
        return JsonFactory.builder()
                .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                .build();
    }
}
