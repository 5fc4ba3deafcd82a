package io.tributary.itests.xacrash;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The row {@link ReplyingListener} writes for each request it handles: one per request id (the primary key). */
@Entity
@Table(name = "XA_HANDLED_REQUEST")
public class HandledRequest {

    @Id
    private String id;

    protected HandledRequest() {
    }

    HandledRequest(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }
}
