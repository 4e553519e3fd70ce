SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;
SET default_tablespace = '';
SET default_table_access_method = heap;
CREATE TABLE public.baselines (
    name text NOT NULL,
    run_id bigint NOT NULL,
    pinned_at bigint NOT NULL
);
CREATE TABLE public.cases (
    id bigint NOT NULL,
    key text NOT NULL,
    suite text NOT NULL,
    name text NOT NULL,
    params text NOT NULL,
    threads integer NOT NULL,
    device text NOT NULL
);
CREATE SEQUENCE public.cases_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.cases_id_seq OWNED BY public.cases.id;
CREATE TABLE public.checks (
    id bigint NOT NULL,
    run_id bigint NOT NULL,
    suite text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    expected text,
    actual text,
    passed integer NOT NULL,
    skipped integer DEFAULT 0 NOT NULL,
    message text
);
CREATE SEQUENCE public.checks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.checks_id_seq OWNED BY public.checks.id;
CREATE TABLE public.machines (
    id bigint NOT NULL,
    hash text NOT NULL,
    fingerprint text NOT NULL
);
CREATE SEQUENCE public.machines_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.machines_id_seq OWNED BY public.machines.id;
CREATE TABLE public.perfgate_schema (
    version integer NOT NULL
);
CREATE TABLE public.results (
    id bigint NOT NULL,
    run_id bigint NOT NULL,
    case_id bigint NOT NULL,
    metric text NOT NULL,
    unit text NOT NULL,
    status text NOT NULL,
    message text,
    n bigint NOT NULL,
    number_per_run bigint NOT NULL,
    median double precision,
    q1 double precision,
    q3 double precision,
    iqr double precision,
    mean double precision,
    stddev double precision,
    min double precision,
    max double precision,
    flops double precision,
    bytes double precision,
    mfu double precision,
    warmup_s double precision,
    threshold double precision,
    alpha double precision,
    warnings integer DEFAULT 0 NOT NULL,
    extra text,
    samples bytea
);
CREATE SEQUENCE public.results_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.results_id_seq OWNED BY public.results.id;
CREATE TABLE public.runs (
    id bigint NOT NULL,
    uuid text NOT NULL,
    suite_set text,
    commit_sha text,
    branch text,
    ref text,
    pr bigint,
    ci_url text,
    source text DEFAULT 'perfgate'::text NOT NULL,
    tool_version text,
    machine_id bigint,
    started_at bigint NOT NULL,
    finished_at bigint NOT NULL
);
CREATE SEQUENCE public.runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.runs_id_seq OWNED BY public.runs.id;
ALTER TABLE ONLY public.cases ALTER COLUMN id SET DEFAULT nextval('public.cases_id_seq'::regclass);
ALTER TABLE ONLY public.checks ALTER COLUMN id SET DEFAULT nextval('public.checks_id_seq'::regclass);
ALTER TABLE ONLY public.machines ALTER COLUMN id SET DEFAULT nextval('public.machines_id_seq'::regclass);
ALTER TABLE ONLY public.results ALTER COLUMN id SET DEFAULT nextval('public.results_id_seq'::regclass);
ALTER TABLE ONLY public.runs ALTER COLUMN id SET DEFAULT nextval('public.runs_id_seq'::regclass);
INSERT INTO public.cases VALUES (1, 'fix/matmul_chain[layers=2,n=16]@1:cpu', 'fix', 'matmul_chain', '{"layers":2,"n":16}', 1, 'cpu');
INSERT INTO public.cases VALUES (2, 'fix/saxpy[n=1024]@1:cpu', 'fix', 'saxpy', '{"n":1024}', 1, 'cpu');
INSERT INTO public.machines VALUES (1, '468935446e716b8d', '{"allowed_cpus":2,"arch":"x86_64","aslr":"2","blas":"OpenBLAS","boost":null,"cpu_max_mhz":null,"cpu_model":"AMD EPYC","default_threads":1,"governor":null,"gpu":null,"hostname":"vm","isa":"sse4_2 avx avx2 fma avx512f avx512_bf16","kernel":"6.18.44-fc-v1098","libc":"2.36","omp_num_threads_env":null,"online_cores":2,"openblas_config":"OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64","openblas_corename":"Cooperlake","openblas_coretype_env":null,"openblas_num_threads_env":null,"openblas_parallel":"pthreads","openblas_threads_max":2,"openblas_version":"0.3.21","physical_cores":2,"scaling_driver":null,"smt":"0","virtualized":true}');
INSERT INTO public.perfgate_schema VALUES (1);
INSERT INTO public.results VALUES (1, 1, 2, 'time', 's', 'ok', NULL, 15, 16384, 8.319451904296875e-08, 8.152362060546875e-08, 8.48204345703125e-08, 3.2968139648437453e-09, 8.470894368489583e-08, 5.514772226297129e-09, 8.12054443359375e-08, 1.0287390136718751e-07, NULL, 12288, NULL, 0.005000074, 0.05, 0.05, 0, NULL, '\x85ec1fb888f7753ec73b9ccd9e5c773eccd487a2fe82763eea92111a38d5773e1101ce253115763e02cdba5b66cc753e0110f6741555763e55fca2aefccc753e7636d574ec89763ebb353746b5ff763e181bffad801c763ec108ddcf709d7b3ee648cc8bca88763ec861307f85cc753e7f0eda4865cc753e');
INSERT INTO public.results VALUES (2, 1, 1, 'time', 's', 'ok', NULL, 20, 4096, 2.441175537109375e-07, 2.4096728515625e-07, 2.5599969482421877e-07, 1.5032409667968753e-08, 2.4892976074218755e-07, 1.1091663712760427e-08, 2.382802734375e-07, 2.7053491210937504e-07, 16384, NULL, NULL, 0.005000245, 0.05, 0.05, 0, NULL, '\x8561905995fb8f3ec2d854733ffb8f3e2cac868a920c903e0c49afcbc51f923e8fe71c04693b903eb86d4ff8bb63903ee60b94f34917903e54f19d9dae1c913e621be43a35b3903e98745720c127923edafbc469d770903ee679b293a8b4913e349e03298333903ed39c579d1ed9913e4303d733891c903e7b64f70de1d2903e622282ca2831903e3bc9eeb3de30903ef63fa7bd1460903ecdcd5d691e62913e');
INSERT INTO public.results VALUES (3, 2, 2, 'time', 's', 'ok', NULL, 15, 16384, 8.315472412109376e-08, 8.163668823242188e-08, 8.601907348632813e-08, 4.382385253906252e-09, 8.4889208984375e-08, 4.914315105610789e-09, 8.12060546875e-08, 9.908837890625e-08, NULL, 12288, NULL, 0.005000015, 0.05, 0.05, 0, NULL, '\x3402e08e26cd753ec6f4d36bf215763e977fa10570cc753ea9cef62a2ac9773e031b214d0691763e2b8c0cf64f05763e2893ab3ca777763ed6d6cc7d195c783eb3720c211737763e2b1921b8a194763eb0f068c27acc753ea9a551324d997a3ed3db90605952763ef363785ebd99773e518a5ba7bfce753e');
INSERT INTO public.results VALUES (4, 2, 1, 'time', 's', 'ok', NULL, 12, 8192, 2.0500933837890625e-07, 2.018843994140625e-07, 2.1146148681640625e-07, 9.577087402343752e-09, 2.0906150309244797e-07, 1.129511234270233e-08, 1.98369873046875e-07, 2.3307092285156253e-07, 16384, NULL, NULL, 0.005000076, 0.05, 0.05, 0, NULL, '\x7f31e95c421f8b3e1b404b99cc5f8e3ea9ef2adbef9f8a3ea63797730d598b3ea20b57f814af8b3eeb9c4be3aac18a3e1d2a42c1f7c48b3e3e429d57142d8b3e88d29f7cc8fb8b3eb113962cb2938d3e9e10a78441488f3e24a436bd00058b3e');
INSERT INTO public.runs VALUES (1, '879b9077-6d65-43fd-96d7-260f08b6bbe2', 'fix', '1111111111111111111111111111111111111111', 'main', NULL, NULL, NULL, 'perfgate', '0.1.0', 1, 1796185559, 1796185559);
INSERT INTO public.runs VALUES (2, 'ccbb1f7e-9d73-4597-a1f8-4a02e83f6cf6', 'fix', '2222222222222222222222222222222222222222', 'main', NULL, NULL, NULL, 'perfgate', '0.1.0', 1, 1796185559, 1796185559);
SELECT pg_catalog.setval('public.cases_id_seq', 4, true);
SELECT pg_catalog.setval('public.checks_id_seq', 1, false);
SELECT pg_catalog.setval('public.machines_id_seq', 2, true);
SELECT pg_catalog.setval('public.results_id_seq', 4, true);
SELECT pg_catalog.setval('public.runs_id_seq', 2, true);
ALTER TABLE ONLY public.baselines
    ADD CONSTRAINT baselines_pkey PRIMARY KEY (name, run_id);
ALTER TABLE ONLY public.cases
    ADD CONSTRAINT cases_key_key UNIQUE (key);
ALTER TABLE ONLY public.cases
    ADD CONSTRAINT cases_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.checks
    ADD CONSTRAINT checks_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.machines
    ADD CONSTRAINT machines_hash_key UNIQUE (hash);
ALTER TABLE ONLY public.machines
    ADD CONSTRAINT machines_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.results
    ADD CONSTRAINT results_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.results
    ADD CONSTRAINT results_run_id_case_id_metric_key UNIQUE (run_id, case_id, metric);
ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_uuid_key UNIQUE (uuid);
CREATE INDEX baselines_run ON public.baselines USING btree (run_id);
CREATE INDEX checks_run ON public.checks USING btree (run_id);
CREATE INDEX results_case ON public.results USING btree (case_id, run_id);
CREATE INDEX runs_branch ON public.runs USING btree (branch, id);
CREATE INDEX runs_commit ON public.runs USING btree (commit_sha text_pattern_ops);
CREATE INDEX runs_machine ON public.runs USING btree (machine_id, id);
ALTER TABLE ONLY public.baselines
    ADD CONSTRAINT baselines_run_id_fkey FOREIGN KEY (run_id) REFERENCES public.runs(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.checks
    ADD CONSTRAINT checks_run_id_fkey FOREIGN KEY (run_id) REFERENCES public.runs(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.results
    ADD CONSTRAINT results_case_id_fkey FOREIGN KEY (case_id) REFERENCES public.cases(id);
ALTER TABLE ONLY public.results
    ADD CONSTRAINT results_run_id_fkey FOREIGN KEY (run_id) REFERENCES public.runs(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_machine_id_fkey FOREIGN KEY (machine_id) REFERENCES public.machines(id);
