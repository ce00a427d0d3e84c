postgresql:
  pkg.installed: []
  file.managed:
    - name: /etc/postgresql/pg_hba.conf
    - mode: 600 
    - contents: "host all all {{pillar['cidr']}} md5"
