package io.tributary.itests.xacrash;

import java.util.List;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** Reads the rows of the XA crash test's database, and what the database itself holds in doubt. */
@Stateless
public class HandledRequests {

    @PersistenceContext(unitName = ReplyingListener.PERSISTENCE_UNIT)
    private EntityManager entities;

    /** The ids of the requests whose rows are committed, in id order. */
    public List<String> ids() {
        return entities.createQuery("select r.id from HandledRequest r order by r.id", String.class).getResultList();
    }

    /** How many prepared transactions H2 holds undecided (its table of in-doubt transactions). */
    public long inDoubt() {
        return ((Number) entities.createNativeQuery("select count(*) from INFORMATION_SCHEMA.IN_DOUBT")
                .getSingleResult()).longValue();
    }
}
