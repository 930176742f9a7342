package dev.sendlog.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * An answer decided and not yet written. The handlers that count what they serve at once stop counting when the answer
 * is decided, then write it: a client may read the answer and send its next request before the serving thread gets back
 * from writing, which would count two at once.
 */
@FunctionalInterface
interface Reply {
    void send(HttpExchange exchange) throws IOException;
}
