deploy:
  user.present:
    - home: /home/deploy   
  file.directory:
    - name: /home/deploy/.ssh
    - mode: '0700'

reload:
  cmd.wait:
    - name: systemctl daemon-reload
