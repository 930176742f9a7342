package dev.sendlog.bench.peer;

import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import dev.sendlog.bench.baseline.ProviderClient;
import java.sql.PreparedStatement;

/**
 * The work the peer schedules through the library: submit one message to the provider, then record the
 * provider's id on the message row. The library runs it inside the transaction that locked the outbox entry
 * and deletes the entry in that same transaction, so the id and the entry's removal commit together.
 */
public class ProviderCall {
    private final ProviderClient provider;
    private final ThreadLocalContextTransactionManager transactions;

    public ProviderCall(ProviderClient provider, ThreadLocalContextTransactionManager transactions) {
        this.provider = provider;
        this.transactions = transactions;
    }

    /** Called by the library, with the arguments given at schedule time. */
    public void send(String messageId, String to, String body) throws Exception {
        String providerId = provider.submit(messageId, to, body, messageId);
        transactions.requireTransaction(tx -> {
            try (PreparedStatement update = tx.connection()
                    .prepareStatement("UPDATE messages SET provider_id = ?, sent_at = now() WHERE id = ?::uuid")) {
                update.setString(1, providerId);
                update.setString(2, messageId);
                update.executeUpdate();
            }
        });
    }
}
